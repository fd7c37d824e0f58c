-- quizbot schema, version 17: typed answers to computed questions.
-- `typed` is the number a learner typed instead of tapping, in the question's unit (NULL for
-- a tap). A typed value that matches no option is stored with chosen = -1.
ALTER TABLE answers ADD COLUMN typed REAL;
