-- quizbot schema, version 7 (the same number on SQLite).
-- A per-attempt random seed for computed questions: the numbers a learner (or every member
-- of a round) draws come from it. NULL: a session or round from before computed questions.
ALTER TABLE sessions ADD COLUMN seed bigint;
ALTER TABLE rounds ADD COLUMN seed bigint;

-- The Telegram webhook inbox: an update is stored by its update_id (once) before the 200
-- goes back, then claimed with a lease (like jobs) and processed from here.
CREATE TABLE inbox (
    platform    text NOT NULL,
    update_id   bigint NOT NULL,
    body        text NOT NULL,                  -- the update as received (JSON)
    received_at double precision NOT NULL,
    lease_until double precision,               -- claimed until then; NULL: unclaimed
    done_at     double precision,
    attempts    integer NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, update_id)
);
CREATE INDEX inbox_pending ON inbox (platform, received_at) WHERE done_at IS NULL;
