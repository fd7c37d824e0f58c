-- quizbot schema, version 20: the question message of a private chat (as SQLite's
-- 0020_question_messages.sql).
CREATE TABLE question_messages (
    platform   text NOT NULL,
    user_id    text NOT NULL,
    session_id bigint NOT NULL,
    position   integer NOT NULL,
    message_id text,
    refusals   integer NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, user_id)
);
