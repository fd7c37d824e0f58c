-- The dashboard's group view (bot/store/dashboard.py) reads a group's sessions and rounds;
-- without these it would scan every learner's sessions on each request.
CREATE INDEX IF NOT EXISTS sessions_by_chat ON sessions (platform, chat_id, kind, status)
    WHERE chat_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS rounds_by_board ON rounds (platform, board_chat, started_at);
