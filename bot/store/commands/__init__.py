"""Every store command, written once for SQLite and PostgreSQL, grouped by feature."""
