-- quizbot schema, version 1.
CREATE TABLE users (
    platform     TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    display_name TEXT NOT NULL DEFAULT '',
    lang         TEXT,                         -- NULL: not chosen yet, use the platform's hint
    created_at   REAL NOT NULL,
    PRIMARY KEY (platform, user_id)
) WITHOUT ROWID;

CREATE TABLE sessions (
    id            INTEGER PRIMARY KEY,
    platform      TEXT NOT NULL,
    user_id       TEXT NOT NULL,
    chat_id       TEXT,                        -- group chat / guild it started in, if any
    quiz_id       TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('full', 'review')),
    status        TEXT NOT NULL CHECK (status IN ('active', 'finished', 'abandoned')),
    question_ids  TEXT NOT NULL,               -- JSON list, in this session's order
    option_orders TEXT NOT NULL,               -- JSON list: per question, shown index -> file index
    position      INTEGER NOT NULL DEFAULT 0,  -- questions answered so far
    score         INTEGER NOT NULL DEFAULT 0,
    started_at    REAL NOT NULL,
    finished_at   REAL,
    FOREIGN KEY (platform, user_id) REFERENCES users (platform, user_id) ON DELETE CASCADE
);
-- At most one unfinished session per user and quiz.
CREATE UNIQUE INDEX sessions_one_active ON sessions (platform, user_id, quiz_id)
    WHERE status = 'active';
CREATE INDEX sessions_by_user ON sessions (platform, user_id, quiz_id, kind, status, finished_at);

CREATE TABLE answers (
    session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    question_id TEXT NOT NULL,
    chosen      INTEGER NOT NULL,              -- index in the quiz file, not as shown
    correct     INTEGER NOT NULL CHECK (correct IN (0, 1)),
    answered_at REAL NOT NULL,
    PRIMARY KEY (session_id, position)
) WITHOUT ROWID;

-- Best full-attempt score per user, globally (scope '') and per chat ('<platform>:<chat>'),
-- kept on finish so a leaderboard is an index range scan, not a scan of all sessions.
CREATE TABLE best_scores (
    quiz_id     TEXT NOT NULL,
    scope       TEXT NOT NULL,
    platform    TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    score       INTEGER NOT NULL,
    total       INTEGER NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (quiz_id, scope, platform, user_id),
    FOREIGN KEY (platform, user_id) REFERENCES users (platform, user_id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX best_scores_rank ON best_scores (quiz_id, scope, score DESC, finished_at);
CREATE INDEX best_scores_user ON best_scores (platform, user_id);
