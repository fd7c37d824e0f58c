-- quizbot schema, version 14 (the same number on SQLite).
-- A group's (Telegram) or server's (Discord) own choice, set by its admins with /settings:
-- the quiz a round or /quiz there starts without naming one, and the language round posts
-- use. NULL: not chosen (the bot's default quiz, the starter's language).
CREATE TABLE group_settings (
    platform   text NOT NULL,
    chat_id    text NOT NULL,
    quiz_id    text,
    lang       text,
    set_by     text NOT NULL,
    updated_at double precision NOT NULL,
    PRIMARY KEY (platform, chat_id)
);
