-- quizbot schema, version 15: the question of the day (/daily).
-- A day's question is a one-question round of kind 'daily', open for `close_hours`; it may
-- run alongside a /round in the same chat, so "one running round per chat" is per kind.
ALTER TABLE rounds ADD COLUMN kind TEXT NOT NULL DEFAULT 'round' CHECK (kind IN ('round', 'daily'));
DROP INDEX rounds_one_active;
CREATE UNIQUE INDEX rounds_one_active ON rounds (platform, chat_id, kind) WHERE status = 'active';

-- One question of the day per chat (the primary key); its next post is a job
-- ("daily", "daily:<platform>:<chat>") due at the next local `post_minute`.
CREATE TABLE dailies (
    platform    TEXT NOT NULL,
    chat_id     TEXT NOT NULL,              -- where it is posted (Discord: the channel)
    board_chat  TEXT NOT NULL,              -- whose leaderboard it counts on
    quiz_id     TEXT,                       -- NULL: the default quiz
    lang        TEXT NOT NULL,
    post_minute INTEGER NOT NULL,           -- minutes after local midnight
    utc_offset  INTEGER NOT NULL,           -- minutes east of UTC
    close_hours REAL NOT NULL,              -- hours each day's question stays open
    host_id     TEXT NOT NULL,
    host_name   TEXT NOT NULL DEFAULT '',
    created_at  REAL NOT NULL,
    PRIMARY KEY (platform, chat_id)
);
