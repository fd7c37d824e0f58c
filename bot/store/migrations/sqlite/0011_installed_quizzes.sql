-- quizbot schema, version 11 (the same number on PostgreSQL).
-- Quizzes installed by admins (an upload in chat, `quizbot quizzes add`), beside the shipped
-- files and never over them. Rows are never changed: each install is a new row, a removal a
-- row with removed_at set and no text; a quiz is its newest row. The newest id is the
-- version every process checks (a read of one index entry) to pick up changes.
CREATE TABLE installed_quizzes (
    id           INTEGER PRIMARY KEY,          -- the version: grows with every change
    quiz_id      TEXT NOT NULL,
    yaml         TEXT NOT NULL,                -- the quiz file as `quizbot validate` read it
    images       TEXT NOT NULL DEFAULT '{}',   -- JSON: {"img/x.png": "<base64>"}
    installed_by TEXT NOT NULL,                -- "telegram:123", "cli:alice"
    installed_at REAL NOT NULL,
    removed_at   REAL                          -- set on the row that removes the quiz
);
CREATE INDEX installed_quizzes_by_quiz ON installed_quizzes (quiz_id, id);
