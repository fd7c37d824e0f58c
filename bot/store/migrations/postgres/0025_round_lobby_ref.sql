-- quizbot schema, version 25: the id of a round's lobby message, whose join buttons the
-- round's end takes off (as SQLite's 0025_round_lobby_ref.sql).
ALTER TABLE rounds ADD COLUMN lobby_ref text;
