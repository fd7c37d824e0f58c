"""quizbot's platform-neutral core: content, engine, store, i18n and config."""

__version__ = "0.1.0"
