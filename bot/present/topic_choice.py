"""`/review NAME` (Discord `/review topic:NAME`) naming no topic: the topics as buttons, each
labelled with its name in the learner's language (a learner never sees a topic's id, and
cannot retype a name of several words on Telegram), each practising its topic when tapped
(`TopicPayload`, routed by the engine like the summary's "Practise" button)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from bot.domain.errors import clip_echo
from bot.domain.payloads import TopicPayload
from bot.domain.results import Actor
from bot.present.cards import LABEL_LIMIT, Button, Card, Reply
from bot.present.clipping import clip

if TYPE_CHECKING:
    from bot.present.plan import Planner


class Topics(Protocol):
    """What is read of the engine: the topics and their names."""

    def topics(self) -> Mapping[str, Any]: ...

    def topic_name(self, topic: str, lang: str) -> str: ...


def topic_choice(plan: Planner, lang: str, actor: Actor, typed: str, known: Topics) -> Reply:
    """"There is no topic called `typed`", over one button per topic (by name, in
    alphabetical order of the names), owned by the one who asked."""
    named = sorted(((known.topic_name(topic, lang), topic) for topic in known.topics()),
                   key=lambda n: n[0].lower())
    rows = tuple((Button(clip(label, LABEL_LIMIT),
                         TopicPayload.of(actor.user_id, topic).pack()),)
                 for label, topic in named)
    return Reply(send=(Card(plan.t(lang, "topic.no_such", topic=clip_echo(typed)),
                            rows=rows),))
