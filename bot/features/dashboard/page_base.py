"""What both dashboard pages stand on: the engine, the store, the texts, the loaded quizzes and
the caller's language."""

from __future__ import annotations

from collections.abc import Callable

from bot.domain.quiz import Quiz
from bot.features.dashboard.auth import Identity
from bot.features.engine import Engine
from bot.present.i18n import Catalogue
from bot.store.commands import sessions_sql
from bot.store.protocol import Store


class Page:
    """One page's reads: the learner's (`LearnerPage`) or a group's (`GroupPage`)."""

    def __init__(self, engine: Engine, store: Store, catalogue: Catalogue) -> None:
        self.engine, self.store, self.cat = engine, store, catalogue

    def quizzes(self) -> dict[str, Quiz]:
        """Every quiz loaded now (after a /reload too), by id."""
        return quizzes_of(self.engine)

    async def language(self, who: Identity) -> str:
        """The caller's chosen language, else their app's, else the default."""
        profile = await self.store.read(sessions_sql.user, who.platform, who.user_id)
        return self.engine.resolve_language(profile[1] if profile else None, who.locale)

    def _t(self, lang: str) -> Callable[..., str]:
        return lambda key, **params: self.cat.t(lang, key, **params)


def quizzes_of(engine: Engine) -> dict[str, Quiz]:
    """Every quiz the engine has loaded now (after a /reload too), by id."""
    return dict(engine.library.quizzes)


__all__ = ["Page", "quizzes_of"]
