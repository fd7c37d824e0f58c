"""`/review NAME` (Discord `/review topic:NAME`) naming no topic: the topics as buttons, each
labelled with its name in the learner's language, in that language's alphabetical order (a
learner never sees a topic's id, and cannot retype a name of several words on Telegram), each
practising its topic when tapped (`TopicPayload`, routed by the engine like the summary's
"Practise" button)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from bot.domain.errors import clip_echo
from bot.domain.payloads import TopicPayload
from bot.domain.platforms import TELEGRAM
from bot.domain.results import Actor
from bot.present.cards import LABEL_LIMIT, Button, Card, Reply
from bot.present.clipping import clip_isolated
from bot.present.collation import sort_key
from bot.present.i18n import is_rtl

if TYPE_CHECKING:
    from bot.present.plan import Planner


class Topics(Protocol):
    """What is read of the engine: the topics and their names."""

    def topics(self) -> Mapping[str, Any]: ...

    def topic_name(self, topic: str, lang: str) -> str: ...


def topic_choice(plan: Planner, lang: str, actor: Actor, typed: str, known: Topics, *,
                 limit: int = TELEGRAM.buttons) -> Reply:
    """"There is no topic called `typed`", over one button per topic (by name, in
    alphabetical order of the names), owned by the one who asked. `limit`: the buttons a
    message carries (Discord: 25); past it, the first `limit` and how to reach the others."""
    named = sorted(((known.topic_name(topic, lang), topic) for topic in known.topics()),
                   key=lambda n: sort_key(lang, n[0]))
    # a name's Latin runs isolated in Urdu: "MoE اور ایکسپرٹ متوازیت" opening in Latin read
    # left to right, the Urdu half backwards ("micro-batch شیڈول" as "schedule micro-batch")
    rows = tuple((Button(clip_isolated(label, LABEL_LIMIT, is_rtl(lang)),
                         TopicPayload.of(actor.user_id, topic).pack()),)
                 for label, topic in named[:limit])
    text = plan.t(lang, "topic.no_such", topic=clip_echo(typed))
    if len(named) > limit:  # said, not cut silently
        text += "\n" + plan.t(lang, plan.platform_key(lang, "topic.more"), shown=limit,
                              count=len(named))
    return Reply(send=(Card(text, rows=rows),))
