-- quizbot schema, version 17: typed answers to computed questions (as SQLite's
-- 0017_typed_answers.sql).
ALTER TABLE answers ADD COLUMN typed double precision;
