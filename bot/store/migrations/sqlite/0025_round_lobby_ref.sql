-- quizbot schema, version 25 (the same number on PostgreSQL).
-- The platform's id of a team or untimed round's lobby message (the answer to the command
-- that started it, carrying the join buttons): the round's end takes its buttons off.
ALTER TABLE rounds ADD COLUMN lobby_ref TEXT;
