-- quizbot schema, version 18 (the same number on PostgreSQL).
-- "Report a problem" under an explanation: what a learner reported about a question, with
-- the numbers they were shown (a computed question's attempt seed), until an admin marks it
-- resolved.
CREATE TABLE problem_reports (
    id          INTEGER PRIMARY KEY,
    platform    TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    quiz_id     TEXT NOT NULL,
    question_id TEXT NOT NULL,
    seed        INTEGER,                       -- the attempt's seed (computed questions)
    reason      TEXT NOT NULL,                 -- wrong, unclear, translation, other
    note        TEXT NOT NULL DEFAULT '',
    lang        TEXT NOT NULL,
    created_at  REAL NOT NULL,
    resolved_at REAL,
    resolved_by TEXT
);
CREATE INDEX problem_reports_by_user ON problem_reports (platform, user_id, created_at);
CREATE INDEX problem_reports_open ON problem_reports (created_at) WHERE resolved_at IS NULL;
