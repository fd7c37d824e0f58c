-- quizbot schema, version 16: rewards for reaching a score on a quiz (/reward).
-- Discord: a server's role per quiz and threshold (one per quiz and server; a second
-- replaces the first). A grant row is the latest time a member earned it: the role is added
-- only when it is earned (an attempt reaching the score), so a role removed by hand stays
-- removed until the member earns it again.
CREATE TABLE rewards (
    platform  TEXT NOT NULL,
    guild_id  TEXT NOT NULL,                 -- the server (Telegram: the group)
    quiz_id   TEXT NOT NULL,
    role_id   TEXT NOT NULL,
    role_name TEXT NOT NULL DEFAULT '',
    score     INTEGER NOT NULL,              -- right answers in one attempt
    set_by    TEXT NOT NULL,
    set_at    REAL NOT NULL,
    PRIMARY KEY (platform, guild_id, quiz_id)
);

CREATE TABLE reward_grants (
    platform  TEXT NOT NULL,
    guild_id  TEXT NOT NULL,
    quiz_id   TEXT NOT NULL,
    user_id   TEXT NOT NULL,
    role_id   TEXT NOT NULL,
    score     INTEGER NOT NULL,
    earned_at REAL NOT NULL,
    PRIMARY KEY (platform, guild_id, quiz_id, user_id)
);
