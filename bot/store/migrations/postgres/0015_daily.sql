-- quizbot schema, version 15: the question of the day (as SQLite's 0015_daily.sql).
ALTER TABLE rounds ADD COLUMN kind text NOT NULL DEFAULT 'round' CHECK (kind IN ('round', 'daily'));
DROP INDEX rounds_one_active;
CREATE UNIQUE INDEX rounds_one_active ON rounds (platform, chat_id, kind) WHERE status = 'active';

CREATE TABLE dailies (
    platform    text NOT NULL,
    chat_id     text NOT NULL,
    board_chat  text NOT NULL,
    quiz_id     text,
    lang        text NOT NULL,
    post_minute integer NOT NULL,
    utc_offset  integer NOT NULL,
    close_hours double precision NOT NULL,
    host_id     text NOT NULL,
    host_name   text NOT NULL DEFAULT '',
    created_at  double precision NOT NULL,
    PRIMARY KEY (platform, chat_id)
);
