"""The Telegram adapter (python-telegram-bot): `TelegramAdapter(app)`, then start/stop."""

from adapters.telegram.adapter import TelegramAdapter

__all__ = ["TelegramAdapter"]
