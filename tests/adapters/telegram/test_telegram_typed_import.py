"""A teacher's Moodle export with typed-number questions, uploaded in a private chat and
played through the real python-telegram-bot against the fake Bot API: a number typed
within the Moodle tolerance is right (in the question's unit with another SI prefix too), one
outside it wrong, a unit of another kind refused naming the unit, and the explanation
(Moodle's feedback) shows either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.present.i18n import strip_isolates
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, is_question
from tests.adapters.telegram.support import BotFactory

FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"
ADMIN = 4242


def _text(message: dict[str, Any]) -> str:
    return strip_isolates(message.get("text") or message.get("caption") or "")


async def test_typed_numbers_of_an_uploaded_moodle_quiz_use_its_tolerance(
        start_bot: BotFactory, api: FakeBotAPI) -> None:
    async with start_bot(admins=[ADMIN]):
        admin = Learner(api, api.user(ADMIN, "Ada"))
        since = admin.mark()
        await api.push_update(api.document(admin.user, "photosynthesis.xml",
                                           (FIXTURES / "photosynthesis.xml").read_bytes(),
                                           admin.chat))
        installed = _text(await admin.reply(since))
        assert installed.startswith("Installed “Photosynthesis” (questions: 10)")
        assert "partial credit (50%) is not kept" in installed

        learner = Learner(api, api.user(1001, "Lin"))
        since = learner.mark()
        await learner.send("/quiz photosynthesis")
        seen: dict[str, str] = {}
        for _ in range(10):
            question = await learner.reply(since, is_question)
            text = _text(question)
            since = learner.mark()
            if "molecules of CO2" in text:  # exactly 6 (tolerance 0): 7 is wrong
                assert "Or type the number" in text
                await learner.send("7")
                seen["co2"] = await verdict(learner, since)
            elif "wavelength" in text:  # 680 +- 10 nm: 0.689 µm is right, 680 ms no length
                assert "680 nm" in text and "660 nm" in text
                await learner.send("680 ms")
                refused = _text(await learner.reply(since))
                assert "ms is the wrong kind of unit here: the answer is in nm." in refused
                since = learner.mark()
                await learner.send("0.689 µm")
                seen["peak"] = await verdict(learner, since)
            else:
                await learner.tap(question, next(d for d in button_data(question)
                                                 if d.startswith("a1:")))
        co2, peak = seen["co2"], seen["peak"]
        assert "Not quite." in co2 and "You typed: 7" in co2
        assert "6 CO2 + 6 H2O → C6H12O6 + 6 O2." in co2  # Moodle's general feedback
        assert "Correct!" in peak and "You typed: 689 nm" in peak
        assert "Chlorophyll a's red absorption peak is near 680 nm" in peak


async def verdict(learner: Learner, since: int) -> str:
    """The typed answer's result: the question edited into it, or, when the number came in
    before the question's message id was stored (a loaded box), a new message."""
    def found() -> str | None:
        for call in learner.sent(since, methods=("editMessageText", "sendMessage")):
            text = _text(learner.api.messages[(learner.chat_id, call.result["message_id"])])
            if "You typed" in text:
                return text
        return None
    return await learner.api.wait_for(found, 30.0, "the typed answer's result")
