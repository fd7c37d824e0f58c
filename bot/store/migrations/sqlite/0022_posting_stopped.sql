-- quizbot schema, version 22 (the same number on PostgreSQL).
-- A chat's question of the day that went off by itself because the platform stopped letting
-- the bot post there keeps its row, with when and why ('forbidden': no permission to post,
-- 'gone': the channel is gone), so /daily status can say so; /daily on clears it, /daily off
-- drops the row. NULL: it is on.
ALTER TABLE dailies ADD COLUMN stopped_at REAL;
ALTER TABLE dailies ADD COLUMN stop_reason TEXT;
-- When a learner's reminders went off because the platform refused them (Discord: their
-- direct messages are closed): they are told once, the next time they use the bot in a
-- server, and it is NULL again.
ALTER TABLE learner_settings ADD COLUMN remind_stopped_at REAL;
