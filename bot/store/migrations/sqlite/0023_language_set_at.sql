-- quizbot schema, version 23 (the same number on PostgreSQL).
-- When the learner last changed their language: a start seconds after another one joins it
-- ("question 1 is just above") only when that question was posted in the language they read
-- now; a question posted before the change is posted again in the new language. NULL: never
-- changed since this column came.
ALTER TABLE users ADD COLUMN lang_set_at REAL;
