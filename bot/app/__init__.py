"""The application: config, composition root, logs, metrics."""
