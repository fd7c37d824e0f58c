-- quizbot schema, version 23: when the learner last changed their language (as SQLite's
-- 0023_language_set_at.sql).
ALTER TABLE users ADD COLUMN lang_set_at double precision;
