-- quizbot schema, version 26 (the same number on PostgreSQL).
-- The members the platform said manage a group (Telegram chat administrators, Discord
-- Manage Server), noted when one of them used an admin's command there (/settings, /daily,
-- a round's stop or skip) or opened the group's dashboard page: their own dashboard lists
-- the group ("you manage this group") though they neither play nor host there.
CREATE TABLE group_managers (
    platform TEXT NOT NULL,
    chat_id  TEXT NOT NULL,
    user_id  TEXT NOT NULL,
    seen_at  REAL NOT NULL,
    PRIMARY KEY (platform, chat_id, user_id)
);
CREATE INDEX group_managers_by_user ON group_managers (platform, user_id);
