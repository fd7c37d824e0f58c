"""What a press shows: one renderer per outcome type, in one table.

The engine routes a press once, by its payload's class, to the feature that decides; the
outcome comes back here and is looked up by its class once more, to the one function that
turns it into a `Reply`. Telegram, Discord and the terminal all show a press through
`Planner.pressed`, which is `render`: a new outcome type is one function and one table row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from bot.domain.payloads import REPORT_REASONS, ReportPayload, StartPayload
from bot.domain.platforms import units
from bot.domain.product_limits import UNTIMED_SECONDS
from bot.domain.results import (
    Actor,
    AnswerResult,
    LanguageSet,
    Misplaced,
    NotYours,
    PressOutcome,
    QuestionPrompt,
    QuizList,
    ReportAsked,
    ReportDone,
    ResetCancelled,
    ResetDone,
    SettingsView,
    StaleAnswer,
    TypedOutcome,
    TypedRefused,
    UnknownButton,
    Where,
)
from bot.domain.round_results import Joined, LockedIn, PressRefused, WhoAnswered
from bot.present import render
from bot.present.cards import Button, Card, Reply
from bot.present.i18n import Catalogue

if TYPE_CHECKING:
    from bot.present.plan import Planner

ACK_LIMIT = 200  # characters of a Telegram callback answer


def ack_text(text: str) -> str:
    """A pop-up's text within ACK_LIMIT: whole lines, then "…" (a refusal that lists the
    quizzes must not stop mid-word)."""
    if units(text) <= ACK_LIMIT:
        return text
    kept = ""
    for line in text.splitlines():
        if units(kept) + units(line) + 2 > ACK_LIMIT:
            break
        kept += f"{line}\n"
    if not kept:  # one long line: cut it
        kept = text[:ACK_LIMIT - 1]
        while units(kept) > ACK_LIMIT - 1:
            kept = kept[:-1]
    return f"{kept}…"


def team_name(cat: Catalogue, lang: str, team: int) -> str:
    """A round's team by its colour and name ("🟥 Red")."""
    return cat.t(lang, f"round.team_{team}")


def _joined(cat: Catalogue, j: Joined, round_command: str) -> str:
    if j.outcome in ("joined", "already"):
        if j.team is not None:
            key = "round.joined_team" if j.outcome == "joined" else "round.join_already"
            return cat.t(j.lang, key, team=team_name(cat, j.lang, j.team))
        # no team yet: "any team" in a team round (drawn at question 1), or untimed
        return cat.t(j.lang, "round.join_already_in" if j.outcome == "already"
                     else "round.joined_any" if j.drafted else "round.joined")
    if j.outcome == "closed":
        return cat.t(j.lang, "round.join_closed")
    return cat.t(j.lang, "round.gone", command=round_command)


def round_ack(cat: Catalogue, outcome: LockedIn | PressRefused | Joined,
              round_command: str = "/round") -> str:
    """The private answer to a press on a round's button: never whether it was right;
    `round_command`: how this platform starts a round (said when the pressed one is over)."""
    if isinstance(outcome, Joined):
        return _joined(cat, outcome, round_command)
    if isinstance(outcome, LockedIn):
        letter = render.letter(outcome.letter)
        if outcome.team is not None:  # "Any team" or a late joiner: which one, each time
            return cat.t(outcome.lang, "round.locked_team", letter=letter,
                         team=team_name(cat, outcome.lang, outcome.team))
        if outcome.joined:  # untimed: the group now waits for them at every question
            return cat.t(outcome.lang, "round.locked_joined", letter=letter,
                         minutes=UNTIMED_SECONDS // 60)
        key = "round.already_locked" if outcome.repeat else "round.locked"
        return cat.t(outcome.lang, key, letter=letter)
    if outcome.reason == "gone":
        return cat.t(outcome.lang, "round.gone", command=round_command)
    return cat.t(outcome.lang, f"round.{outcome.reason}")


# --- one renderer per outcome type ------------------------------------------------------------

def _answered(plan: Planner, result: AnswerResult, actor: Actor, where: Where | None) -> Reply:
    toast = render.toast(plan.cat, result)  # what a learner must see first
    if result.duplicate:  # the first delivery already showed everything
        return Reply(ack=toast)
    if result.next is not None:
        after = plan.question(result.next, actor)
    else:
        assert result.summary is not None
        after = plan.summary(result.summary, actor)
    return Reply(ack=toast, edit=plan.answered(result, actor.user_id), send=(after,))


def _not_yours(plan: Planner, outcome: NotYours, actor: Actor, where: Where | None) -> Reply:
    # session 0: a button that is not a question's
    key = "answer.not_yours" if outcome.session_id else "error.not_your_button"
    return Reply(ack=plan.cat.t(outcome.lang, key, command=outcome.command))


def _stale(plan: Planner, outcome: StaleAnswer, actor: Actor, where: Where | None) -> Reply:
    if outcome.changed is not None:  # said where it stays (a toast goes), with the way on
        quiz_id, title = outcome.changed
        said = plan.cat.t(outcome.lang, "answer.quiz_changed", title=title)
        start = Button(plan.cat.t(outcome.lang, "button.start"),
                       StartPayload.of(actor.user_id, quiz_id).pack(), "primary")
        return Reply(ack=said, clear_buttons=True,
                     send=(Card(plan.m.escape(said), rows=((start,),)),))
    if outcome.removed:
        return Reply(ack=plan.cat.t(outcome.lang, "answer.quiz_removed"), clear_buttons=True)
    key = "answer.stale" if outcome.current is not None else "answer.stale_finished"
    send = (plan.question(outcome.current, actor),) if outcome.current else ()
    return Reply(ack=plan.cat.t(outcome.lang, key), clear_buttons=True, send=send)


def _prompt(plan: Planner, prompt: QuestionPrompt, actor: Actor, where: Where | None) -> Reply:
    if prompt.joined:  # Try again / Review pressed twice: one question 1, one note
        return Reply(ack=plan.cat.t(prompt.lang, "question.joined", number=prompt.number))
    return plan.asked(prompt, actor)


def _quizzes(plan: Planner, quizzes: QuizList, actor: Actor, where: Where | None) -> Reply:
    return plan.catalogue(quizzes, actor)


def _language(plan: Planner, outcome: LanguageSet, actor: Actor, where: Where | None) -> Reply:
    return Reply(ack=plan.cat.t(outcome.lang, "language.set"),
                 edit=language_set(plan, outcome.lang, actor))


def language_set(plan: Planner, lang: str, actor: Actor) -> Card:
    """"Language set" with Start: no quiz named, it goes on as /quiz does (the quiz left
    unfinished, now in the new language)."""
    start = Button(plan.cat.t(lang, "button.start"), StartPayload.of(actor.user_id).pack(),
                   "primary")
    return Card(plan.t(lang, "language.set"), rows=((start,),))


def _settings(plan: Planner, view: SettingsView, actor: Actor, where: Where | None) -> Reply:
    return Reply(ack=plan.cat.t(view.lang, "settings.saved"),
                 edit=plan.settings_card(view, actor))


def _reset_done(plan: Planner, done: ResetDone, actor: Actor, where: Where | None) -> Reply:
    return Reply(edit=Card(plan.t(done.lang, "reset.done")))


def _reset_cancelled(plan: Planner, cancelled: ResetCancelled, actor: Actor,
                     where: Where | None) -> Reply:
    return Reply(edit=Card(plan.t(cancelled.lang, "reset.cancelled")))


def _round_ack(plan: Planner, outcome: LockedIn | PressRefused | Joined, actor: Actor,
               where: Where | None) -> Reply:
    # a round's: a private ack, never a verdict
    return Reply(ack=round_ack(plan.cat, outcome, plan.round_command))


def _misplaced(plan: Planner, outcome: Misplaced, actor: Actor, where: Where | None) -> Reply:
    # a button's data pressed where it does not belong
    return Reply(ack=plan.cat.t(outcome.lang, "round.misplaced"), alert=True)


def _report_asked(plan: Planner, asked: ReportAsked, actor: Actor, where: Where | None
                  ) -> Reply:
    """The reasons to pick from, as the presser's own buttons."""
    rows = tuple((Button(plan.cat.t(asked.lang, f"report.reason_{name}"),
                         ReportPayload.about(actor.user_id, asked.session_id,
                                             asked.position, letter).pack()),)
                 for letter, name in REPORT_REASONS.items())
    return Reply(send=(Card(plan.t(asked.lang, "report.ask"), rows=rows),))


def _report_done(plan: Planner, done: ReportDone, actor: Actor, where: Where | None) -> Reply:
    """Stored (with how to add a line), or why not."""
    text = plan.cat.t(done.lang, f"report.{done.outcome}")
    if done.outcome == "stored":
        return Reply(ack=ack_text(text), edit=Card(plan.m.escape(text)))
    return Reply(ack=ack_text(text), alert=True)


def _who(plan: Planner, who: WhoAnswered, actor: Actor, where: Where | None) -> Reply:
    """A page of "Who answered?", only for the presser: a page turned edits its message;
    pressed on the round's public message it comes privately (Discord: an ephemeral
    message; Telegram: the private chat, through a deep link)."""
    if plan.rounds is None:  # rounds are off in this process
        return _unknown(plan, UnknownButton(who.lang, of_round=True), actor, where)
    card = plan.rounds.who(who, actor.user_id)
    if where is None:  # opened by a link, not pressed on a message
        return Reply(send=(card,))
    if not where.shared:  # a page turned: its text (the picture came with the first page)
        return Reply(edit=replace(card, image=None, schedule=None, caption=""))
    if plan.private_url is not None:  # a chat where nothing is private to one member
        url = plan.private_url(who)
        return Reply(ack=None if url else plan.cat.t(who.lang, "round.who_open"), ack_url=url)
    return Reply(send=(card,))


def _unknown(plan: Planner, outcome: UnknownButton, actor: Actor, where: Where | None
             ) -> Reply:
    # a round's: the round is over or the button is not this chat's, and /round is the way
    # on (Discord: /round start); a learner's own: /quiz
    key = (plan.platform_key(outcome.lang, "round.button_gone") if outcome.of_round
           else "error.unknown_button")
    return Reply(ack=plan.cat.t(outcome.lang, key))


Renderer = Callable[["Planner", Any, Actor, "Where | None"], Reply]
RENDERERS: dict[type, Renderer] = {
    AnswerResult: _answered, NotYours: _not_yours, StaleAnswer: _stale,
    QuestionPrompt: _prompt, QuizList: _quizzes, LanguageSet: _language,
    SettingsView: _settings, ResetDone: _reset_done, ResetCancelled: _reset_cancelled,
    LockedIn: _round_ack, PressRefused: _round_ack, Joined: _round_ack,
    Misplaced: _misplaced, ReportAsked: _report_asked, ReportDone: _report_done,
    WhoAnswered: _who, UnknownButton: _unknown,
}


def render_press(plan: Planner, outcome: PressOutcome, actor: Actor,
                 where: Where | None = None) -> Reply:
    """What a press shows, whatever it was: its outcome type's one renderer."""
    return RENDERERS[type(outcome)](plan, outcome, actor, where)


def render_typed(plan: Planner, outcome: TypedOutcome, actor: Actor) -> Reply:
    """A typed answer shows as a press of its option would; text has no pop-up to
    answer, so what a press says only there is sent as a message."""
    if isinstance(outcome, TypedRefused):
        return Reply(send=(Card(plan.m.escape(render.typed_refusal(plan.cat, outcome))),))
    reply = render_press(plan, outcome, actor)
    if reply.ack and reply.edit is None and not reply.send:
        return Reply(send=(Card(plan.m.escape(reply.ack)),))
    return reply
