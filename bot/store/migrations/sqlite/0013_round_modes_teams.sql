-- quizbot schema, version 13: a round's scoring mode, teams and untimed play.
-- scoring: 'accuracy' (right answers), 'speed' (Kahoot's points), 'streak' (bonus in a row);
-- see bot/domain/round_rules.py. teams: 0 for none, else 2-6. untimed: 1 when each question
-- stays open up to 30 minutes and reveals once every joined member has answered.
ALTER TABLE rounds ADD COLUMN scoring TEXT NOT NULL DEFAULT 'accuracy';
ALTER TABLE rounds ADD COLUMN teams INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN untimed INTEGER NOT NULL DEFAULT 0;

-- Who joined a team (or untimed) round, and on which team (0-based; NULL: "any team", drawn
-- when question 1 opens). The primary key keeps a member on one team for the whole round.
CREATE TABLE round_members (
    round_id     INTEGER NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL,
    display_name TEXT NOT NULL DEFAULT '',
    team         INTEGER,
    joined_at    REAL NOT NULL,
    PRIMARY KEY (round_id, user_id)
);
