-- quizbot schema, version 21: the topic of a practice session (as SQLite's
-- 0021_session_topic.sql).
ALTER TABLE sessions ADD COLUMN topic text;
