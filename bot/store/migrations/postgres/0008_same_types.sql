-- quizbot schema, version 8: the same column types as on SQLite, so every store command is
-- one statement for both dialects: flags are integer 0/1 (were boolean), lists and job
-- payloads are JSON text (were jsonb; jsonb printed them with the same separators).
ALTER TABLE answers ALTER COLUMN correct TYPE integer USING correct::integer;
ALTER TABLE answers ADD CONSTRAINT answers_correct_check CHECK (correct IN (0, 1));
ALTER TABLE round_answers ALTER COLUMN correct TYPE integer USING correct::integer;
ALTER TABLE round_answers ADD CONSTRAINT round_answers_correct_check CHECK (correct IN (0, 1));
ALTER TABLE reviews ALTER COLUMN correct TYPE integer USING correct::integer,
    ALTER COLUMN sure TYPE integer USING sure::integer;
ALTER TABLE reviews ADD CONSTRAINT reviews_correct_check CHECK (correct IN (0, 1)),
    ADD CONSTRAINT reviews_sure_check CHECK (sure IN (0, 1));
ALTER TABLE learner_settings ALTER COLUMN confidence DROP DEFAULT;
ALTER TABLE learner_settings ALTER COLUMN confidence TYPE integer USING confidence::integer;
ALTER TABLE learner_settings ALTER COLUMN confidence SET DEFAULT 0;
ALTER TABLE learner_settings ADD CONSTRAINT learner_settings_confidence_check
    CHECK (confidence IN (0, 1));

ALTER TABLE sessions ALTER COLUMN question_ids TYPE text USING question_ids::text,
    ALTER COLUMN option_orders TYPE text USING option_orders::text;
ALTER TABLE rounds ALTER COLUMN question_ids TYPE text USING question_ids::text,
    ALTER COLUMN option_orders TYPE text USING option_orders::text;
ALTER TABLE jobs ALTER COLUMN payload DROP DEFAULT;
ALTER TABLE jobs ALTER COLUMN payload TYPE text USING payload::text;
ALTER TABLE jobs ALTER COLUMN payload SET DEFAULT '{}';
