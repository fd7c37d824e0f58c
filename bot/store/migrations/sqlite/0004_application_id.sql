-- quizbot schema, version 4.
-- Marks the file as quizbot's ("qbot" at offset 68 of the SQLite header), so start-up can
-- refuse another application's database from its first 100 bytes, before opening it.
-- Must equal bot.store.migrate.APPLICATION_ID.
PRAGMA application_id = 1902276468;
