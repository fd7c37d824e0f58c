-- quizbot schema, version 21 (the same number on PostgreSQL).
-- The topic a practice session (/review topic:NAME) was started for: the session runs on
-- the spaced-review quiz like a due review, and this names it "Practice: <topic>" wherever
-- it is shown, also when it is picked up again after a restart. NULL for every other
-- session.
ALTER TABLE sessions ADD COLUMN topic TEXT;
