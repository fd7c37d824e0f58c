-- quizbot schema, version 6: spaced review, confidence, reminders, streaks.
--
-- Sessions gain the kind 'due' (a spaced-review session across every quiz). SQLite cannot
-- alter a CHECK, so the table is rebuilt the documented way (create, copy, drop, rename);
-- the migration runner turns foreign keys off around it, so dropping the old table does
-- not cascade into answers, and checks them before COMMIT.
CREATE TABLE sessions_v6 (
    id            INTEGER PRIMARY KEY,
    platform      TEXT NOT NULL,
    user_id       TEXT NOT NULL,
    chat_id       TEXT,
    quiz_id       TEXT NOT NULL,               -- '*' for a 'due' session: ids are quiz/question
    kind          TEXT NOT NULL CHECK (kind IN ('full', 'review', 'due')),
    status        TEXT NOT NULL CHECK (status IN ('active', 'finished', 'abandoned')),
    question_ids  TEXT NOT NULL,
    option_orders TEXT NOT NULL,
    position      INTEGER NOT NULL DEFAULT 0,
    score         INTEGER NOT NULL DEFAULT 0,
    started_at    REAL NOT NULL,
    finished_at   REAL,
    round_id      INTEGER REFERENCES rounds (id) ON DELETE SET NULL,  -- from version 5
    FOREIGN KEY (platform, user_id) REFERENCES users (platform, user_id) ON DELETE CASCADE
);
INSERT INTO sessions_v6 (id, platform, user_id, chat_id, quiz_id, kind, status, question_ids,
                         option_orders, position, score, started_at, finished_at, round_id)
    SELECT id, platform, user_id, chat_id, quiz_id, kind, status, question_ids, option_orders,
           position, score, started_at, finished_at, round_id FROM sessions;
DROP TABLE sessions;
ALTER TABLE sessions_v6 RENAME TO sessions;
CREATE UNIQUE INDEX sessions_one_active ON sessions (platform, user_id, quiz_id)
    WHERE status = 'active';
CREATE INDEX sessions_by_user ON sessions (platform, user_id, quiz_id, kind, status, finished_at);
CREATE INDEX sessions_by_round ON sessions (round_id) WHERE round_id IS NOT NULL;

-- (IF NOT EXISTS: a database whose version rows were reset re-runs this safely.)
-- One FSRS memory card per learner and question (fsrs.Card as JSON), with its due time
-- in a column so "what is due, most overdue first" is an index range scan.
CREATE TABLE IF NOT EXISTS cards (
    platform    TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    quiz_id     TEXT NOT NULL,
    question_id TEXT NOT NULL,
    card        TEXT NOT NULL,                 -- fsrs.Card.to_json()
    due_at      REAL NOT NULL,                 -- epoch seconds, = card.due
    reviews     INTEGER NOT NULL DEFAULT 0,
    updated_at  REAL NOT NULL,
    PRIMARY KEY (platform, user_id, quiz_id, question_id),
    FOREIGN KEY (platform, user_id) REFERENCES users (platform, user_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS cards_due ON cards (platform, user_id, due_at);

-- Every answer that counted, from any source (solo session, round), once: `answer_key`
-- makes applying it idempotent, and the card moves only when this INSERT inserts.
-- `day` is the learner's local calendar day (days since 1970-01-01 at their offset) at the
-- time of the answer: streaks and history read it without date arithmetic in SQL.
CREATE TABLE IF NOT EXISTS reviews (
    answer_key  TEXT PRIMARY KEY,              -- e.g. 's:<session>:<position>'
    platform    TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    quiz_id     TEXT NOT NULL,
    question_id TEXT NOT NULL,
    correct     INTEGER NOT NULL CHECK (correct IN (0, 1)),
    sure        INTEGER CHECK (sure IN (0, 1)),  -- NULL: confidence not asked
    rating      INTEGER NOT NULL,              -- fsrs.Rating
    reviewed_at REAL NOT NULL,
    day         INTEGER NOT NULL,
    FOREIGN KEY (platform, user_id) REFERENCES users (platform, user_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS reviews_by_user ON reviews (platform, user_id, day);

-- Per-learner learning settings; a missing row means the defaults (all off, UTC).
CREATE TABLE IF NOT EXISTS learner_settings (
    platform    TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    confidence  INTEGER NOT NULL DEFAULT 0 CHECK (confidence IN (0, 1)),
    utc_offset  INTEGER NOT NULL DEFAULT 0,    -- minutes east of UTC
    remind_at   INTEGER,                       -- minutes after local midnight; NULL: off
    chat_id     TEXT,                          -- where reminders go (the private chat)
    PRIMARY KEY (platform, user_id),
    FOREIGN KEY (platform, user_id) REFERENCES users (platform, user_id) ON DELETE CASCADE
);

-- Due jobs for bot.scheduler (reminders now; round reveals later). A job is claimed by a
-- conditional UPDATE ... RETURNING, so of several processes exactly one runs it; a claim
-- older than the lease is taken to be a crashed runner's and may be claimed again.
CREATE TABLE IF NOT EXISTS jobs (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL UNIQUE,          -- one live job per key, e.g. 'remind:telegram:42'
    due_at      REAL NOT NULL,
    payload     TEXT NOT NULL DEFAULT '{}',    -- JSON
    claimed_at  REAL,
    claimed_by  TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    done_at     REAL
);
CREATE INDEX IF NOT EXISTS jobs_due ON jobs (due_at) WHERE done_at IS NULL;
