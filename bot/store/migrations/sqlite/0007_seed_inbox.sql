-- quizbot schema, version 7 (the same number on PostgreSQL).
-- A per-attempt random seed for computed questions: the numbers a learner (or every member
-- of a round) draws come from it, so resume, restart and a double tap see the same draw.
-- NULL: a session or round from before computed questions.
ALTER TABLE sessions ADD COLUMN seed INTEGER;
ALTER TABLE rounds ADD COLUMN seed INTEGER;

-- The Telegram webhook inbox: an update is stored by its update_id (once) before the 200
-- goes back, then claimed with a lease (like jobs) and processed from here, so a worker
-- killed after its 200 loses nothing and an update delivered twice counts once.
CREATE TABLE inbox (
    platform    TEXT NOT NULL,
    update_id   INTEGER NOT NULL,
    body        TEXT NOT NULL,                 -- the update as received (JSON)
    received_at REAL NOT NULL,
    lease_until REAL,                          -- claimed until then; NULL: unclaimed
    done_at     REAL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, update_id)
);
CREATE INDEX inbox_pending ON inbox (platform, received_at) WHERE done_at IS NULL;
