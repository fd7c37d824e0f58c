-- quizbot schema, version 13: a round's scoring mode, teams and untimed play (as SQLite's
-- 0013_round_modes_teams.sql; see bot/domain/round_rules.py).
ALTER TABLE rounds ADD COLUMN scoring text NOT NULL DEFAULT 'accuracy';
ALTER TABLE rounds ADD COLUMN teams integer NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN untimed integer NOT NULL DEFAULT 0;

-- Who joined a team (or untimed) round, and on which team (NULL: drawn at question 1).
CREATE TABLE round_members (
    round_id     bigint NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    user_id      text NOT NULL,
    display_name text NOT NULL DEFAULT '',
    team         integer,
    joined_at    double precision NOT NULL,
    PRIMARY KEY (round_id, user_id)
);
