-- quizbot schema, version 10 (the same number on SQLite).
-- Each chat's name as people read it (Telegram: the group's title, kept current from its
-- updates; Discord: the server's name, and a channel's), so pages and reports show names,
-- never chat ids.
CREATE TABLE chats (
    platform   text NOT NULL,
    chat_id    text NOT NULL,
    title      text NOT NULL,
    updated_at double precision NOT NULL,
    PRIMARY KEY (platform, chat_id)
);

-- Discord dashboard links are single-use: a link's nonce is stored when it is exchanged
-- for a session, and a second exchange of the same link is refused. Rows past their link's
-- expiry are deleted as new ones arrive.
CREATE TABLE used_links (
    nonce      text PRIMARY KEY,
    expires_at double precision NOT NULL
);
CREATE INDEX used_links_expiry ON used_links (expires_at);
