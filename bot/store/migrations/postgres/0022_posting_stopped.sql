-- quizbot schema, version 22: why a question of the day went off by itself, and when a
-- learner's reminders did (as SQLite's 0022_posting_stopped.sql).
ALTER TABLE dailies ADD COLUMN stopped_at double precision;
ALTER TABLE dailies ADD COLUMN stop_reason text;
ALTER TABLE learner_settings ADD COLUMN remind_stopped_at double precision;
