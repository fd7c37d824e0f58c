-- quizbot schema, version 14 (the same number on PostgreSQL).
-- A group's (Telegram) or server's (Discord) own choice, set by its admins with /settings:
-- the quiz a round or /quiz there starts without naming one, and the language round posts
-- use. NULL: not chosen (the bot's default quiz, the starter's language).
CREATE TABLE group_settings (
    platform   TEXT NOT NULL,
    chat_id    TEXT NOT NULL,
    quiz_id    TEXT,
    lang       TEXT,
    set_by     TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (platform, chat_id)
);
