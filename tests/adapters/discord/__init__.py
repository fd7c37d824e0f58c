"""Discord adapter tests, against a fake Discord on 127.0.0.1."""
