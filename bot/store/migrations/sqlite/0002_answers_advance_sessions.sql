-- quizbot schema, version 2.
-- A stored answer moves its session on by one question and adds to its score, in the same
-- statement: one round trip per batch of answers instead of two, and a repeated delivery
-- (INSERT ... ON CONFLICT DO NOTHING inserts nothing) cannot count twice, whichever
-- process sends it.
CREATE TRIGGER answers_advance_session AFTER INSERT ON answers
BEGIN
    UPDATE sessions
    SET position = position + 1, score = score + NEW.correct
    WHERE id = NEW.session_id;
END;
