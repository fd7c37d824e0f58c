-- quizbot schema, version 19: confident misses. `sure_miss` is 1 when the card's last
-- review was a wrong answer marked "sure": /review shows such cards first.
ALTER TABLE cards ADD COLUMN sure_miss INTEGER NOT NULL DEFAULT 0;
