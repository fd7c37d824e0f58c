"""The store: a `Store` port, its SQLite implementation and the migration runner."""
