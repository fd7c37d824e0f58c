"""The terminal adapter: the quiz with no token."""
