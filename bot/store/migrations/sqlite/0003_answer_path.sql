-- quizbot schema, version 3.
-- The answer path is explicit again: `record_answer` advances a session with a guarded
-- UPDATE (WHERE id = ? AND position = ? AND status = 'active') whose row count decides
-- whether an answer counts, in the same transaction as the INSERT of the answer. The
-- trigger of version 2 did that implicitly; it goes.
DROP TRIGGER IF EXISTS answers_advance_session;
