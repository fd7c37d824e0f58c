-- quizbot schema, version 19: confident misses (as SQLite's 0019_confident_misses.sql).
ALTER TABLE cards ADD COLUMN sure_miss integer NOT NULL DEFAULT 0;
