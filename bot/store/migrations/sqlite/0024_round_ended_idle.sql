-- quizbot schema, version 24 (the same number on PostgreSQL).
-- A round that ended by itself because nobody answered its last questions: how many
-- questions in a row went unanswered (0: it was not ended that way). Its final reveal says
-- so and how to start another (bot.domain.product_limits.UNANSWERED_TO_END).
ALTER TABLE rounds ADD COLUMN ended_idle INTEGER NOT NULL DEFAULT 0;
