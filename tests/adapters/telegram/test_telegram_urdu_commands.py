"""Every /command in an Urdu text is one Telegram marks as a bot_command (tappable): a
direction mark or an isolate may stand before the slash or wrap "/name args" whole, never
sit between "/" and the name. The usage lines of /round and /daily, /daily's replies and
/help put an isolate there ("\u200e/\u2066daily off\u2069\u200e"), so the app showed
"/daily off" as plain text."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from bot.present.i18n import Catalogue, placeholders
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner
from tests.adapters.telegram.support import Running
from tests.adapters.telegram.test_telegram_rounds import GROUP_ID, Room
from tests.adapters.telegram.wire import bot_commands, command_names

MARKS = re.compile("[\u200e\u200f\u2066-\u2069]")
# what a reader sees as a command once the invisible marks are gone
WRITTEN = re.compile(r"(?<![\w/:.])/([a-z_]+)\b")


def written(text: str) -> list[str]:
    """The /commands a text spells out, as a reader sees them."""
    return WRITTEN.findall(MARKS.sub("", text))


def assert_tappable(message: dict[str, Any], *expected: str) -> None:
    """Telegram finds every command the message spells out, `expected` among them."""
    names = command_names(message)
    assert Counter(names) == Counter(written(message["text"])), message["text"]
    assert set(expected) <= set(names), (expected, message["text"])


def test_every_command_in_every_urdu_string_is_one_telegram_finds(catalogue: Catalogue
                                                                    ) -> None:
    for key in sorted(catalogue.keys("ur")):
        raw = catalogue.raw("ur", key)
        if not written(raw):
            continue
        params = {name: "/quizzes" if name == "command" else "1" for name in placeholders(raw)}
        text = catalogue.t("ur", key, **params)
        found = command_names({"text": text, "entities": bot_commands(text)})
        assert Counter(found) == Counter(written(text)), (key, text)


async def test_urdu_usage_lines_and_help_keep_their_commands_tappable(
        bot: Running, api: FakeBotAPI) -> None:
    room = Room(bot, api)
    sana = Learner(api, api.user(4004, "Sana", language_code="ur"), room.group)
    api.members[(GROUP_ID, 4004)] = "administrator"
    for command, expected in (("/round teams 9", ("round",)), ("/daily on 9", ("daily",)),
                              ("/daily on 13:30 +05:00 parallelism", ("daily",)),
                              ("/daily off", ("daily",))):
        since = sana.mark()
        await sana.send(command)
        assert_tappable(await sana.reply(since), *expected)
    alone = Learner(api, sana.user)
    since = alone.mark()
    await alone.send("/help")
    help_text = await alone.reply(since)
    assert_tappable(help_text, "quiz", "daily", "round", "review")
    assert command_names(help_text).count("daily") == 2  # "/daily on …" and "(… /daily off)"
