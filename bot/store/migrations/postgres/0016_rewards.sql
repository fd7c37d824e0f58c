-- quizbot schema, version 16: rewards for reaching a score on a quiz (as SQLite's
-- 0016_rewards.sql).
CREATE TABLE rewards (
    platform  text NOT NULL,
    guild_id  text NOT NULL,                 -- the server (Telegram: the group)
    quiz_id   text NOT NULL,
    role_id   text NOT NULL,
    role_name text NOT NULL DEFAULT '',
    score     integer NOT NULL,              -- right answers in one attempt
    set_by    text NOT NULL,
    set_at    double precision NOT NULL,
    PRIMARY KEY (platform, guild_id, quiz_id)
);

CREATE TABLE reward_grants (
    platform  text NOT NULL,
    guild_id  text NOT NULL,
    quiz_id   text NOT NULL,
    user_id   text NOT NULL,
    role_id   text NOT NULL,
    score     integer NOT NULL,
    earned_at double precision NOT NULL,
    PRIMARY KEY (platform, guild_id, quiz_id, user_id)
);
