"""Terminal adapter: `quizbot play`, the quiz with no token, on the same engine and store.

Input is read with plain blocking `input()` *between* engine calls, never inside the event
loop, so Ctrl-C and end of input (piped stdin) end the game cleanly with progress saved:
every answer is committed before its feedback is printed.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from collections.abc import Awaitable, Sequence
from dataclasses import replace
from typing import TypeVar

from adapters.terminal.wrap import RLM, bands, columns, visual, wrap
from bot.app.compose import App, open_app
from bot.app.config import Config
from bot.domain.errors import NoActiveSession, NothingDue, QuizError, SaveFailed
from bot.domain.learning import DUE_QUIZ
from bot.domain.payloads import REPORT_REASONS, ReportPayload
from bot.domain.quiz.load import Passes
from bot.domain.results import (
    Actor,
    AnswerOutcome,
    AnswerResult,
    QuestionPrompt,
    ReportAsked,
    ReportDone,
    SessionKind,
    StaleAnswer,
    Summary,
    TypedRefused,
)
from bot.features.naming import quiz_named
from bot.present.i18n import strip_isolates
from bot.present.plan import Card, Planner, Reply
from bot.present.quiz_list import catalogue_lines
from bot.present.render import LETTERS, Markup, content_text

T = TypeVar("T")
QUIT = {"q", "quit", "exit"}
REPORT_KEY = "!"  # typed at a question's prompt: report a problem with the last explanation
LIST_COMMAND = "quizbot list"
# bold where a terminal shows it; nothing folds, so a card's detail is printed in full
TTY = Markup(bold=lambda s: f"\033[1m{s}\033[0m", folds=False)
UNFOLDED = Markup(folds=False)


def _markup() -> Markup:
    return TTY if sys.stdout.isatty() else UNFOLDED


def card_text(card: Card) -> str:
    """A plan card as terminal text: whose it is, the title, the body."""
    head = [line for line in (card.lead, card.title) if line]
    text = "\n".join(head) + "\n\n" + card.body if head else card.body
    figure = bands(card.figure, columns())
    if figure and card.caption:
        figure = f"{card.caption}\n{figure}"
    for part in (figure, card.detail):  # a schedule first, then the explanation
        if part:
            text = f"{text}\n\n{part}"
    return text


def screen(text: str, bidi: str = "logical", *, hang: int = 0) -> str:
    """`text` as printed: wrapped to the screen, in display order with --bidi visual; `hang`
    indents each line's continuation rows that many columns."""
    width = columns()
    if width is None or not hang:
        shown = wrap(text, width)
    else:
        rows = []
        for line in text.split("\n"):
            first, *rest = wrap(line, width - hang).split("\n") or [""]
            rows += [first, *(RLM + " " * hang + r[1:] if r.startswith(RLM) else " " * hang + r
                              for r in rest)]
        shown = "\n".join(rows)
    return visual(shown, width) if bidi == "visual" else shown


class EndOfInput(Exception):
    """The learner typed q, pressed Ctrl-D, or the piped input ran out."""


class TerminalGame:
    """One learner at one terminal."""

    def __init__(self, app: App, runner: asyncio.Runner, actor: Actor, *,
                 bidi: str = "logical") -> None:
        self.app, self.runner, self.actor = app, runner, actor
        self.cat = app.catalogue
        self.bidi = bidi  # "visual": lay right-to-left rows out here (no bidi in the terminal)
        self.plan = Planner(app.catalogue, _markup(), shared_chats=False,
                            catalogue_command=LIST_COMMAND)
        self.first: QuestionPrompt | None = None  # the session the command opened
        self.playing: QuestionPrompt | None = None  # the question asked last

    def screen(self, text: str) -> str:
        """`text` as printed: wrapped to the screen, in display order with --bidi visual."""
        return screen(text, self.bidi)

    def call(self, coro: Awaitable[T]) -> T:
        """Run one engine call to completion on the game's event loop."""
        return self.runner.run(coro)  # type: ignore[arg-type]

    def read(self, prompt: str) -> str:
        """One line typed after `prompt`; a prompt wider than the screen is wrapped at
        words first (the terminal would cut it anywhere, mid-word in Urdu)."""
        shown = self.screen(prompt)
        head, _, last = shown.rpartition("\n")
        if head:
            print(head)
        try:
            line = input(last + (" " if prompt.endswith(" ") and not last.endswith(" ")
                                 else ""))
        except EOFError:
            raise EndOfInput() from None
        if line.strip().lower() in QUIT:
            raise EndOfInput()
        return line.strip()

    def choose(self, prompt: QuestionPrompt, last: AnswerResult | None = None) -> int | str:
        """Ask until the learner types a valid letter (or number) for this question; a
        computed question takes a typed number too (returned as text for the engine); `!`
        reports a problem with the last explanation (`last`) first."""
        letters = LETTERS[: len(prompt.options)]
        shown = "/".join(letters)
        example = prompt.typed_example
        key = "terminal.prompt_typed" if example else "terminal.prompt"
        while True:
            raw = self.read(self.cat.t(prompt.lang, key, letters=shown, example=example))
            if raw == REPORT_KEY and last is not None:
                self.report(last)
                continue
            if len(raw) == 1 and raw.upper() in letters:
                return letters.index(raw.upper())
            if example and raw:  # anything else is a number, read in the question's unit
                return raw
            if raw.isdigit() and 1 <= int(raw) <= len(letters):
                return int(raw) - 1
            print(self.screen(self.cat.t(prompt.lang, "terminal.bad_choice", letters=shown)))

    def report(self, answered: AnswerResult) -> None:
        """"Report a problem" with the question just explained: a reason, then a line."""
        engine, lang, q = self.app.engine, answered.lang, answered.question
        asked = self.call(engine.press(self.actor, ReportPayload.about(
            self.actor.user_id, q.session_id, q.position)))
        if not isinstance(asked, ReportAsked):
            self.show(self.plan.pressed(asked, self.actor))
            return
        # the next question is on the screen by now: say which one this is about
        print(self.screen(self.cat.t(lang, "terminal.report_about", number=q.number,
                                     text=content_text(lang, q.text))))
        print(self.screen(self.cat.t(lang, "report.ask")))
        letters = list(REPORT_REASONS)
        for n, name in enumerate(REPORT_REASONS.values(), 1):
            print(self.screen(f"  {n}) {self.cat.t(lang, f'report.reason_{name}')}"))
        raw = self.read(self.cat.t(lang, "terminal.report_reason", count=len(letters)))
        if not (raw.isdigit() and 1 <= int(raw) <= len(letters)):
            print(self.screen(self.cat.t(lang, "terminal.report_cancelled")))
            return
        done = self.call(engine.press(self.actor, ReportPayload.about(
            self.actor.user_id, q.session_id, q.position, letters[int(raw) - 1])))
        if not isinstance(done, ReportDone) or done.outcome != "stored":
            self.show(self.plan.pressed(done, self.actor))
            return
        line = self.read(self.cat.t(lang, "terminal.report_line"))
        if line:
            self.call(engine.report_note(self.actor, line))
        print(self.screen(self.cat.t(lang, "report.thanks")))

    def show(self, reply: Reply, note: str | None = None) -> None:
        """Print a plan: the ack (unless an edit says more), the edited card, `note` (about
        the edited card), new cards."""
        if reply.ack and reply.edit is None:
            print(self.screen(reply.ack))
        if reply.edit is not None:
            print()
            print(self.screen(card_text(reply.edit)))
        if note:
            print(self.screen(note))
        for card in reply.send:
            print()
            print(self.screen(card_text(card)))

    def play_session(self, prompt: QuestionPrompt, *, more: bool = False
                     ) -> AnswerResult | None:
        """Ask every remaining question of the session; return the last result. `more`:
        the quiz was not named, so the first question names `quizbot list`."""
        engine, quiz_id = self.app.engine, prompt.quiz_id
        # a terminal shows only its own screen: an attempt another terminal started seconds
        # ago (joined) has its question above there, not here
        prompt = replace(prompt, joined=False)
        self.show(self.plan.asked(prompt, self.actor, more=more))
        last: AnswerResult | None = None
        self.first = self.first or prompt
        while True:
            self.playing = prompt
            option = self.choose(prompt, last)
            try:
                if isinstance(option, str):
                    typed = self.call(engine.answer_typed(self.actor, prompt.session_id,
                                                          prompt.position, option))
                    if isinstance(typed, TypedRefused):  # nothing recorded: ask again
                        self.show(self.plan.typed(typed, self.actor))
                        continue
                    outcome: AnswerOutcome = typed
                else:
                    outcome = self.call(engine.answer(self.actor, prompt.session_id,
                                                      prompt.position, option))
            except SaveFailed as exc:  # not counted: say so and ask the same question again
                print(self.screen(self.cat.t(prompt.lang, exc.key, **exc.params)))
                self.show(self.plan.asked(prompt, self.actor))
                continue
            if isinstance(outcome, AnswerResult) and outcome.duplicate:
                # another terminal answered first: show what the database kept
                print()
                print(self.screen(self.cat.t(outcome.lang, "terminal.answered_elsewhere")))
                print(self.screen(card_text(self.plan.answered(outcome))))
            else:  # the report hint under the explanation it is about, above the next
                # prompt: the next question's, or (the last question) an offer after it
                hint = (self.cat.t(outcome.lang, "terminal.report_hint")
                        if isinstance(outcome, AnswerResult) and (
                            outcome.summary is None or _offers(outcome.summary))
                        else None)
                self.show(self.plan.pressed(outcome, self.actor), note=hint)
            if isinstance(outcome, AnswerResult) and not outcome.duplicate:
                last = outcome
                if outcome.summary is not None:
                    return outcome
                assert outcome.next is not None
                prompt = outcome.next
                continue
            # Someone else (another terminal) moved this session on: go where it is.
            try:
                prompt = self.call(engine.review_due(self.actor) if quiz_id == DUE_QUIZ
                                   else engine.current(self.actor, quiz_id))
            except (NoActiveSession, NothingDue):
                return None
            if not isinstance(outcome, StaleAnswer) or outcome.current is None:
                self.show(self.plan.asked(prompt, self.actor))

    def run(self, quiz_id: str | None, lang: str | None, review: bool = False) -> None:
        engine = self.app.engine
        if lang:
            self.call(engine.set_language(self.actor, lang))
        if review and quiz_id:  # quizbot play --quiz ID --review: that quiz's misses
            last = self.play_session(self.call(engine.review(self.actor, quiz_id)))
            while last is not None and last.summary is not None:
                last = self.after(last, last.summary)
            return
        if review:  # quizbot play --review: the due questions of every quiz
            try:
                self.play_session(self.call(engine.review_due(self.actor)))
            except NothingDue as exc:  # never played: the chats' text names /quiz
                key = "terminal.nothing_due" if exc.key == NothingDue.key else exc.key
                print(self.screen(self.cat.t(self.call(engine.language(self.actor)), key,
                                             **exc.params)))
            return
        prompt = self.call(engine.start(self.actor, quiz_id))
        last = self.play_session(prompt, more=quiz_id is None)
        while last is not None and last.summary is not None:
            last = self.after(last, last.summary)

    def after(self, last: AnswerResult, summary: Summary) -> AnswerResult | None:
        """After a finished attempt, what the chats offer as buttons, asked one at a time:
        review the missed questions, then the step the summary names (practise the weakest
        topic, or the next quiz). None when the learner says no to both. `last`, the
        question answered last, can be reported at these prompts as at a question's."""
        engine, lang = self.app.engine, summary.lang
        if not _offers(summary):  # spaced review: the schedule decides what's next
            return None
        if summary.missed and self.yes(self.cat.t(lang, "terminal.offer_review",
                                                  count=len(summary.missed)), last):
            return self.play_session(self.call(engine.review(self.actor, summary.quiz_id)))
        step = summary.next_step
        if step is None or not self.yes(self.cat.t(lang, f"terminal.offer_{step.kind}",
                                                   name=step.name), last):
            return None
        try:
            opened = self.call(engine.review_topic(self.actor, step.id) if step.kind == "topic"
                               else engine.start(self.actor, step.id))
        except QuizError as exc:  # e.g. nothing left to practise: say so, and stop here
            print(self.screen(self.cat.t(lang, exc.key, **exc.params)))
            return None
        return self.play_session(opened)

    def resume_command(self, command: Sequence[str]) -> str:
        """The command that comes back to the session in play: `command` as run when it is
        the session that command opened, else the same with --quiz/--review naming the
        session the summary's offers led to (another quiz, the misses, a topic)."""
        at = self.playing
        if at is None or self.first is None or at.session_id == self.first.session_id:
            return shlex.join(command)
        kept: list[str] = []
        args = iter(command)
        for arg in args:
            if arg == "--quiz":
                next(args, None)
            elif arg != "--review" and not arg.startswith("--quiz="):
                kept.append(arg)
        if at.kind != SessionKind.DUE:
            kept += ["--quiz", at.quiz_id]
        if at.kind != SessionKind.FULL:
            kept.append("--review")
        return shlex.join(kept)

    def saved(self, lang: str, command: str) -> str:
        """"Progress saved. To continue, run: <command>", the command whole on a row of its
        own when the line would break inside it (copied in two pieces, it runs as two)."""
        shown = self.screen(self.cat.t(lang, "terminal.saved", command=command))
        if columns() is None or any(command in strip_isolates(row).replace(RLM, "")
                                    for row in shown.split("\n")):
            return shown
        return f"{self.screen(self.cat.t(lang, 'terminal.saved', command='').rstrip())}\n{command}"

    def yes(self, question: str, last: AnswerResult) -> bool:
        """Ask a [y/N] question; only a yes (in English or Urdu) is yes; `!` reports `last`
        first, then asks again."""
        while (answer := self.read(question)) == REPORT_KEY:
            self.report(last)
        return answer.lower() in {"y", "yes", "ہاں", "ha", "haan"}


# `quizbot play --quiz ID --review` refused: said with the command that finishes the quiz
TERMINAL_KEYS = {"error.quiz_in_progress": "terminal.quiz_in_progress",
                 "error.nothing_to_review": "terminal.nothing_to_review"}


def _offers(summary: Summary) -> bool:
    """Whether the terminal asks anything after this summary (what the chats' buttons do)."""
    return summary.kind != SessionKind.DUE and bool(summary.missed or summary.next_step)


def _language(runner: asyncio.Runner, app: App, actor: Actor) -> str:
    """The learner's language, or the default when the store cannot even say (disk full)."""
    try:
        return runner.run(app.engine.language(actor))
    except QuizError:
        return app.engine.default_lang


def list_quizzes(config: Config, *, lang: str | None, user: str, bidi: str = "logical",
                 passes: Passes | None = None) -> int:
    """`quizbot list`: every quiz, one line each (id, title, questions, level, your best);
    on a screen narrower than a line, wrapped at words with its rest indented under it."""
    actor = Actor(platform="terminal", user_id=user, chat_id=None, display_name=user)

    async def lines() -> list[str]:
        async with open_app(config, passes=passes) as app:
            if lang:
                await app.engine.set_language(actor, lang)
            quizzes = await app.engine.catalogue(actor)
            return catalogue_lines(app.catalogue, quizzes)

    for line in asyncio.run(lines()):
        print(screen(line, bidi, hang=2))
    return 0


def play(config: Config, *, quiz_id: str | None, lang: str | None, user: str,
         review: bool = False, again: Sequence[str] = ("quizbot", "play"),
         bidi: str = "logical", passes: Passes | None = None) -> int:
    """Play in the terminal until the quiz ends, the learner quits, or input runs out.
    `again`: the command that was run, which the "to continue, run" hint adapts."""
    actor = Actor(platform="terminal", user_id=user, chat_id=None, display_name=user)
    with asyncio.Runner() as runner:
        context = open_app(config, passes=passes)
        app = runner.run(context.__aenter__())
        game = TerminalGame(app, runner, actor, bidi=bidi)
        code = 0
        try:
            named = quiz_named(app.engine, app.catalogue.languages, quiz_id) if quiz_id else None
            game.run(named, lang, review)  # --quiz takes an id or a title, as the chats do
        except (EndOfInput, KeyboardInterrupt):
            print()
            print(game.saved(runner.run(app.engine.language(actor)),
                             game.resume_command(again)))
        except QuizError as exc:
            saved_lang = _language(runner, app, actor)
            key, params = TERMINAL_KEYS.get(exc.key, exc.key), dict(exc.params)
            if key != exc.key:  # the chats' text names /quiz: here, the command to run
                params["command"] = shlex.join(a for a in again if a != "--review")
            print(game.screen(app.catalogue.t(saved_lang, key, **params)), file=sys.stderr)
            code = 1
        finally:
            runner.run(context.__aexit__(None, None, None))
    return code
