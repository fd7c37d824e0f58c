-- quizbot schema, version 26: the members the platform said manage a group, whose own
-- dashboard lists it (as SQLite's 0026_group_managers.sql).
CREATE TABLE group_managers (
    platform text NOT NULL,
    chat_id  text NOT NULL,
    user_id  text NOT NULL,
    seen_at  double precision NOT NULL,
    PRIMARY KEY (platform, chat_id, user_id)
);
CREATE INDEX group_managers_by_user ON group_managers (platform, user_id);
