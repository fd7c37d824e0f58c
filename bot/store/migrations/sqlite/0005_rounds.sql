-- quizbot schema, version 5: study-group rounds.
-- A round is one chat's shared, timed run through a quiz. Every step that happens by time
-- is a column with a due time, claimed by a guarded UPDATE (`... WHERE revealed_at IS NULL`,
-- `... WHERE next_open_at <= ?`) whose row count decides who does it, so a restart neither
-- loses nor repeats a step, even with two processes on one database.
CREATE TABLE rounds (
    id            INTEGER PRIMARY KEY,
    platform      TEXT NOT NULL,
    chat_id       TEXT NOT NULL,               -- where the messages go (Discord: the channel)
    board_chat    TEXT NOT NULL,               -- whose leaderboard it counts on (a guild)
    host_id       TEXT NOT NULL,
    host_name     TEXT NOT NULL DEFAULT '',
    quiz_id       TEXT NOT NULL,
    lang          TEXT NOT NULL,
    question_ids  TEXT NOT NULL,               -- JSON list, in this round's order
    option_orders TEXT NOT NULL,               -- JSON list: per question, shown index -> file index
    seconds       INTEGER NOT NULL,            -- time each question stays open
    reveal_pause  REAL NOT NULL,               -- seconds from a reveal to the next question
    status        TEXT NOT NULL CHECK (status IN ('active', 'finished', 'stopped')),
    position      INTEGER NOT NULL DEFAULT -1, -- the last opened question (-1: none yet)
    next_open_at  REAL,                        -- when the next question opens; NULL while one is open
    started_at    REAL NOT NULL,
    finished_at   REAL
);
-- At most one running round per chat.
CREATE UNIQUE INDEX rounds_one_active ON rounds (platform, chat_id) WHERE status = 'active';
CREATE INDEX rounds_due ON rounds (platform, next_open_at) WHERE status = 'active';

CREATE TABLE round_questions (
    round_id    INTEGER NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    qindex      INTEGER NOT NULL,
    opened_at   REAL NOT NULL,
    deadline    REAL NOT NULL,
    revealed_at REAL,                          -- set once, by whoever wins the reveal
    message_ref TEXT,                          -- the platform's id of the question message
    PRIMARY KEY (round_id, qindex)
);
CREATE INDEX round_questions_due ON round_questions (deadline) WHERE revealed_at IS NULL;

-- A member's locked-in answer; the first press wins (INSERT ... ON CONFLICT DO NOTHING).
-- Members of a round are the users with at least one answer in it.
CREATE TABLE round_answers (
    round_id     INTEGER NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    qindex       INTEGER NOT NULL,
    user_id      TEXT NOT NULL,
    display_name TEXT NOT NULL DEFAULT '',
    chosen       INTEGER NOT NULL,             -- index in the quiz file, not as shown
    correct      INTEGER NOT NULL CHECK (correct IN (0, 1)),
    elapsed      REAL NOT NULL,                -- seconds from the question opening to the press
    PRIMARY KEY (round_id, qindex, user_id)
);

-- A finished round becomes one finished session per participant (so /stats, /review and
-- the leaderboards see it); round_id tells those sessions from solo attempts.
ALTER TABLE sessions ADD COLUMN round_id INTEGER REFERENCES rounds (id) ON DELETE SET NULL;
CREATE INDEX sessions_by_round ON sessions (round_id) WHERE round_id IS NOT NULL;
