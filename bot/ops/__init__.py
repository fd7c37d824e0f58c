"""Maintainer operations on a store, run by `quizbot backup|restore|stats|export|check|copy-db`
and never by the running bot: SQLite and PostgreSQL backup and restore (`sqlite_backup`,
`pg_backup`), the read-only connection the reports and checks read through (`reader`), copy-db
(`copy_db`) and writing a new file without following a symlink (`files`).

They are built on `bot.store` (its commands, executors and migrations) and run through the
same commands; the store imports nothing from here.
"""
