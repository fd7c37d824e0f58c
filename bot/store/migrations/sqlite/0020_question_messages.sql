-- quizbot schema, version 20 (the same number on PostgreSQL).
-- The message that shows the question open in a learner's private chat (Telegram), so a
-- number typed there edits that question into its answered state as a tap would, and how
-- many texts in a row since it was asked were no number (the second gets a short hint, later
-- ones no reply). One row per learner: a new question replaces it.
CREATE TABLE question_messages (
    platform   TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    session_id INTEGER NOT NULL,
    position   INTEGER NOT NULL,
    message_id TEXT,
    refusals   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, user_id)
);
