-- quizbot schema, version 24: a round that ended by itself because nobody answered its
-- last questions, and how many in a row (as SQLite's 0024_round_ended_idle.sql).
ALTER TABLE rounds ADD COLUMN ended_idle integer NOT NULL DEFAULT 0;
