"""Engine results -> what the learner sees: one platform-neutral plan per turn.

A turn is data, then effects. `Planner` turns an engine outcome into a `Reply`: the short
private acknowledgement of a press, the card that replaces the pressed message, the cards
sent after it, and every button with its owner. Adapters only carry a `Reply` out, so the
words, the layout, the order of messages and who owns which button are decided once, here.

For an answered question a reply is at most three platform calls: the ack, one edit that
turns the question into its result and explanation, and one message with the next question
(or the summary).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.domain.errors import QuizError, UnknownQuiz, UploadRefused
from bot.domain.payloads import (
    ConfidencePayload,
    DuePayload,
    LanguagePayload,
    NumberPayload,
    QuizzesPayload,
    ReportPayload,
    ResetPayload,
    RetryPayload,
    ReviewPayload,
    StartPayload,
    TopicPayload,
    encode_answer,
)
from bot.domain.results import (
    Actor,
    AnswerResult,
    GroupView,
    InstallOutcome,
    PressOutcome,
    QuestionPrompt,
    QuizCount,
    QuizInfo,
    QuizList,
    SessionKind,
    SettingsView,
    Summary,
    TypedOutcome,
    Where,
)
from bot.domain.round_results import WhoAnswered
from bot.domain.stats_results import Leaderboard, Progress, ReminderNote, UserStats
from bot.present import limits, outcomes, quiz_list, render

# the cards are re-exported: adapters read them where the plans are made
from bot.present.cards import LABEL_LIMIT, Style
from bot.present.cards import Button as Button
from bot.present.cards import Card as Card
from bot.present.cards import Reply as Reply
from bot.present.cards import draw_pictures as draw_pictures
from bot.present.i18n import Catalogue, is_rtl, person
from bot.present.imports import installed_text, offer, told
from bot.present.summary import summary_parts

if TYPE_CHECKING:
    from bot.present.round_plan import RoundPlanner

log = logging.getLogger(__name__)


def _row(lang: str, buttons: list[Button]) -> tuple[Button, ...]:
    """A row of buttons in reading order: right to left for RTL languages."""
    return tuple(reversed(buttons)) if is_rtl(lang) else tuple(buttons)


class Planner:
    """Builds replies for one platform's markup (`render.Markup`)."""

    def __init__(self, cat: Catalogue, markup: render.Markup, *, shared_chats: bool,
                 catalogue_command: str = "/quizzes", type_button: bool = False,
                 rounds: RoundPlanner | None = None,
                 private_url: Callable[[WhoAnswered], str | None] | None = None) -> None:
        self.cat, self.m, self.rounds = cat, markup, rounds  # rounds: "Who answered?" pages
        # where a round's chat keeps nothing private to one member (Telegram): the deep
        # link that opens a "Who answered?" list in the presser's private chat instead
        self.private_url = private_url
        self.catalogue_command = catalogue_command  # how this platform opens the catalogue
        self.round_command = "/round" if shared_chats else "/round start"  # and starts a round
        # True where a learner's quiz messages in a group are seen by everyone (Telegram):
        # each question then names whose it is.
        self.shared_chats = shared_chats
        # True where typing a number needs a button (Discord's "Type it" opens a modal);
        # elsewhere a message (Telegram) or the prompt (terminal) takes it
        self.type_button = type_button

    def t(self, lang: str, key: str, **params: object) -> str:
        """A UI string, escaped for this platform."""
        return self.m.escape(self.cat.t(lang, key, **params))

    # --- questions and answers ------------------------------------------------------------

    def question(self, prompt: QuestionPrompt, actor: Actor) -> Card:
        """A question with one lettered answer button per option."""
        body = render.question_body(self.cat, prompt, self.m)
        if prompt.resumed:
            body = f"{self.t(prompt.lang, 'question.resumed')}\n\n{body}"
        elif prompt.only_in and prompt.position == 0:  # once, at the start of the quiz
            names = self.cat.language_names(prompt.lang, prompt.only_in)
            body = f"{self.t(prompt.lang, 'question.only_in', languages=names)}\n\n{body}"
        lead = ""
        if self.shared_chats and actor.chat_id is not None and actor.display_name:
            name = person(prompt.lang, actor.display_name, self.m.inert)
            lead = self.t(prompt.lang, "question.for", name=name)
        if prompt.confidence:  # one tap still: the top row is "sure", the bottom "a guess"
            body = f"{body}\n\n{self.t(prompt.lang, 'question.confidence_hint')}"
            rows = tuple(_row(prompt.lang, [
                Button(f"{render.letter(i)} {mark}",
                       encode_answer(prompt.session_id, prompt.position, i, sure),
                       "primary" if sure else "secondary")
                for i in range(len(prompt.options))]) for sure, mark in ((True, "👍"),
                                                                         (False, "🤔")))
        else:
            rows = (_row(prompt.lang, [
                Button(render.letter(i), encode_answer(prompt.session_id, prompt.position, i),
                       "primary") for i in range(len(prompt.options))]),)
        if prompt.typed_example and self.type_button:
            rows = (*rows, (Button(self.cat.t(prompt.lang, "button.type_it"),
                                   NumberPayload(prompt.session_id, prompt.position).pack()),))
        return Card(body, title=_title(self.cat, prompt), lead=lead,
                    footer=_footer(self.cat, prompt), rows=rows,
                    asks=(prompt.session_id, prompt.position) if prompt.typed_example else None)

    def answered(self, result: AnswerResult, owner: str | None = None) -> Card:
        """The question after the press: choice and right answer marked, the verdict and
        the takeaway, then the explanation (collapsed when a takeaway leads), in one
        message."""
        body = (render.answered_body(self.cat, result, self.m) + "\n\n"
                + render.feedback_head(self.cat, result, self.m))
        p = result.question

        def style(i: int) -> Style:
            if i == result.correct:
                return "success"
            return "danger" if i == result.chosen else "secondary"

        buttons = [Button(render.letter(i), encode_answer(p.session_id, p.position, i),
                          style(i), disabled=True) for i in range(len(p.options))]
        rows = (_row(result.lang, buttons),) + (() if owner is None else (
            (self.report_button(result.lang, owner, p.session_id, p.position),),))
        card = Card(body, title=render.answered_header(self.cat, result),
                    tone="correct" if result.is_correct else "wrong", footer=_footer(self.cat, p),
                    rows=rows,
                    figure=(f"{result.timeline}\n{self.t(result.lang, 'picture.legend')}"
                            if result.timeline else ""),
                    detail=render.feedback_detail(self.cat, result, self.m),
                    collapse=bool(result.takeaway),
                    detail_label=self.cat.t(result.lang, "answer.explanation"))
        return render.pictured(card, self.cat, result.lang, result.image, result.schedule,
                               self.m)

    def summary(self, summary: Summary, actor: Actor) -> Card:
        """Final score and missed questions, the next step, Review missed and Try again."""
        owner, step = actor.user_id, summary.next_step
        on: tuple[tuple[Button, ...], ...] = ()
        if step is not None:  # the path on: its own row, first
            kind = TopicPayload if step.kind == "topic" else StartPayload
            label = self.cat.t(summary.lang, f"button.next_{step.kind}",
                               name=render.clip(step.name, LABEL_LIMIT - 12))
            on = ((Button(label, kind.of(owner, step.id).pack(), "primary"),),)
        body, detail = summary_parts(self.cat, summary, self.m)
        card = Card(body, detail=detail, collapse=True,
                    detail_label=self.t(summary.lang, "summary.missed_detail"), rows=on)
        if summary.kind == SessionKind.DUE:  # the schedule decides; a topic's practice: step
            return card
        buttons: list[Button] = []
        if summary.missed:
            buttons.append(Button(self.cat.t(summary.lang, "button.review"),
                                  ReviewPayload.of(owner, summary.quiz_id).pack(), "primary"))
        buttons.append(Button(self.cat.t(summary.lang, "button.retry"),
                              RetryPayload.of(owner, summary.quiz_id).pack()))
        return replace(card, rows=(*on, _row(summary.lang, buttons)))

    def asked(self, prompt: QuestionPrompt, actor: Actor, *, more: bool = False) -> Reply:
        """A command or button that opens a question: send it. `more`: the quiz was not
        named, so a new attempt's question names the catalogue in one line."""
        if prompt.joined:  # a second start seconds after the first: it is just above
            return Reply(send=(Card(self.t(prompt.lang, "question.joined",
                                           number=prompt.number)),))
        card = self.question(prompt, actor)
        if more and not prompt.resumed:  # resumed: "Picking up where you left off" leads
            hint = self.t(prompt.lang, "catalogue.more", command=self.catalogue_command)
            card = replace(card, body=f"{hint}\n\n{card.body}")
        return Reply(send=(card,))

    def catalogue(self, quizzes: QuizList, actor: Actor, *,
                  missing: UnknownQuiz | None = None) -> Reply:
        """/quizzes: every quiz as a button that starts (or resumes) it; `missing`: a /quiz
        that named no quiz, said first (the buttons stand for the titles to type), or that
        several titles hold (the caller lists just those, `QuizList.only(missing.ids)`)."""
        lang = quizzes.lang
        key = "catalogue.no_such" if missing is None or missing.ids is None else \
            "catalogue.several"
        lead = (self.m.escape(self.cat.t(lang, key, quiz=missing.params["quiz"]))
                if missing is not None else "")
        rows = tuple((Button(quiz_list.catalogue_label(self.cat, lang, e, LABEL_LIMIT),
                             StartPayload.of(actor.user_id, e.info.id).pack(),
                             "primary" if quiz_list.highlighted(quizzes, e) else "secondary"),)
                     for e in quizzes.entries)
        return Reply(send=(Card(quiz_list.catalogue_text(self.cat, quizzes, self.m), lead=lead,
                                rows=rows),))

    def pressed(self, outcome: PressOutcome, actor: Actor, where: Where | None = None
                ) -> Reply:
        """What a button press shows, whatever it was (`outcomes.RENDERERS`); `where`: the
        pressed message (None when a link opened it)."""
        return outcomes.render_press(self, outcome, actor, where)

    def typed(self, outcome: TypedOutcome, actor: Actor) -> Reply:
        """A typed answer: shown as a press of its option would be."""
        return outcomes.render_typed(self, outcome, actor)

    # --- "Report a problem" (bot.features.reports) -----------------------------------------

    def report_button(self, lang: str, owner: str, session_id: int, position: int) -> Button:
        """The button under an explanation."""
        return Button(self.cat.t(lang, "button.report"),
                      ReportPayload.about(owner, session_id, position).pack())

    def report_note(self, lang: str, added: bool | None) -> Reply:
        """/report <words>: added, nothing to add it to, or (None) how to use it."""
        key = "report.usage" if added is None else "report.noted" if added else \
            "report.no_report"
        return self.text(lang, key)

    # --- commands ----------------------------------------------------------------------

    def error(self, lang: str, error: QuizError | None, *, pressed: bool) -> Reply:
        """A refusal or failure: a pop-up for a press, a message for a command."""
        key, params = (error.key, error.params) if error is not None else ("error.generic", {})
        if isinstance(error, UploadRefused) and error.every:  # in the uploader's language
            params = {"problems": told(self.cat, lang, error.every)}
        try:
            text = self.cat.t(lang, key, **params)
        except (KeyError, IndexError):
            text = self.cat.t(lang, "error.generic")
        if pressed:
            return Reply(ack=outcomes.ack_text(text), alert=True)
        return Reply(send=(Card(self.m.escape(text)),))

    def platform_key(self, lang: str, key: str) -> str:
        """`key`, or its `_server` form where chats are not shared (Discord) and one exists:
        what to type differs there (`/round start`, not `/round`)."""
        return self.cat.platform_key(lang, key, shared_chats=self.shared_chats)

    def text(self, lang: str, key: str, **params: object) -> Reply:
        """One plain UI message."""
        return Reply(send=(Card(self.t(lang, key, **params)),))

    def welcome(self, lang: str, quiz: QuizInfo, actor: Actor, *, quizzes: QuizCount
                ) -> Reply:
        """/start: the welcome, language buttons, Start and All quizzes."""
        text = self.t(lang, "welcome", title=quiz.title, count=quiz.questions,
                      level=quiz_list.level_name(self.cat, lang, quiz.level).lower(),
                      offer=offer(self.cat, lang, quizzes, "offer.built_in_welcome"))
        rows = (*self._language_rows(actor), self._start_row(lang, quiz.id, actor))
        return Reply(send=(Card(text, rows=rows),))

    def help(self, lang: str, quiz: QuizInfo, actor: Actor, *, quizzes: QuizCount,
             admin: bool = False) -> Reply:
        """/help: what the bot can do (an admin: how to install a quiz), Start, All quizzes."""
        key = "help" if self.shared_chats else "help_server"  # Discord: slash options
        text = self.t(lang, key, title=quiz.title, count=quiz.questions,
                      offer=offer(self.cat, lang, quizzes, "offer.built_in"))
        more = "\n\n" + self.t(lang, f"{key}_admin") if admin else ""
        return Reply(send=(Card(text + more, rows=(self._start_row(lang, quiz.id, actor),)),))

    def _start_row(self, lang: str, quiz_id: str, actor: Actor) -> tuple[Button, ...]:
        return _row(lang, [self._start(lang, quiz_id, actor), self.quizzes_button(lang, actor)])

    def quizzes_button(self, lang: str, actor: Actor) -> Button:
        """Opens the catalogue (the presser's own)."""
        return Button(self.cat.t(lang, "button.quizzes"), QuizzesPayload.of(actor.user_id).pack())

    def language_prompt(self, lang: str, actor: Actor) -> Reply:
        """/language: one button per shipped language, each named in itself."""
        return Reply(send=(Card(self.t(lang, "language.prompt"),
                                rows=self._language_rows(actor)),))

    def language_set(self, lang: str, actor: Actor) -> Reply:
        """/language ur: "Language set" with Start, as a press on a language's button says
        (mid-quiz, Start goes on in the new language); in a group, seen by all, the line alone."""
        if self.shared_chats and actor.chat_id is not None:
            return self.text(lang, "language.set")
        return Reply(send=(outcomes.language_set(self, lang, actor),))

    def reset_prompt(self, lang: str, actor: Actor) -> Reply:
        """/reset: ask first; Yes / Cancel belong to the asker."""
        owner = actor.user_id
        row = _row(lang, [Button(self.cat.t(lang, "button.yes"),
                                 ResetPayload.of(owner, "yes").pack(), "danger"),
                          Button(self.cat.t(lang, "button.no"),
                                 ResetPayload.of(owner, "no").pack())])
        return Reply(send=(Card(self.t(lang, "reset.confirm"), rows=(row,)),))

    def stats(self, stats: UserStats) -> Reply:
        return Reply(send=(Card(render.stats_text(self.cat, stats, self.m)),))

    def progress(self, stats: UserStats, progress: Progress, picture: bytes | None = None
                 ) -> Reply:
        """/stats: the quiz's scores and the spaced-review progress, with the chart if any."""
        body = (render.stats_text(self.cat, stats, self.m) + "\n\n"
                + render.progress_text(self.cat, progress, self.m))
        return Reply(send=(Card(body, picture=picture),))

    def settings_card(self, view: SettingsView, actor: Actor) -> Card:
        """/settings: confidence on/off (a button) and the reminder (commands)."""
        label = "button.confidence_off" if view.confidence else "button.confidence_on"
        toggle = Button(self.cat.t(view.lang, label),
                        ConfidencePayload.of(actor.user_id,
                                             "off" if view.confidence else "on").pack(),
                        "primary")
        return Card(self.m.escape(render.settings_text(self.cat, view)), rows=((toggle,),))

    def settings(self, view: SettingsView, actor: Actor) -> Reply:
        return Reply(send=(self.settings_card(view, actor),))

    def reminder_set(self, view: SettingsView, *, by_dm: bool = False) -> Reply:
        """/remind HH:MM or /remind off: what is set now (`by_dm`: asked in a server, it
        comes as a direct message, which the member's privacy settings may refuse)."""
        if view.remind_at is None:
            return self.text(view.lang, "remind.off")
        text = self.t(view.lang, "remind.set", time=view.remind_at, offset=view.utc_offset)
        dm = f"\n{self.t(view.lang, 'remind.by_dm')}" if by_dm else ""
        return Reply(send=(Card(text + dm),))

    def reminder(self, note: ReminderNote) -> Card:
        """The daily reminder, with Review now (the learner's own button)."""
        owner = note.user_id
        button = Button(self.cat.t(note.lang, "button.review_now"),
                        DuePayload.of(owner).pack(), "primary")
        return Card(self.t(note.lang, "reminder.text", due=note.due), rows=((button,),))

    def leaderboard(self, board: Leaderboard) -> Reply:
        here = "_here" if board.scope == "chat" else ""  # in the group itself: "here"
        empty = self.platform_key(board.lang, f"leaderboard.empty_rounds{here}")
        return Reply(send=(Card(render.leaderboard_text(self.cat, board, self.m,
                                                        empty_rounds=empty)),), public=True)

    def reloaded(self, lang: str, infos: tuple[QuizInfo, ...]) -> Reply:
        return self.text(lang, "admin.reloaded", count=len(infos), ids=limits.named_quizzes(
            lang, ((info.id, info.title) for info in infos)))

    def installed(self, lang: str, done: InstallOutcome) -> Reply:
        """An uploaded quiz is served (`imports.installed_text`)."""
        group = self.platform_key(lang, "admin.group_next")  # Discord: its _server form
        return Reply(send=(Card(self.m.escape(installed_text(self.cat, lang, done, group))),))

    def group_settings(self, view: GroupView, *, saved: bool = False) -> Reply:
        """/settings in a group: the quiz rounds and /quiz start there, the language of
        round posts, and how its admins change them."""
        t = self.cat.t
        key = ("group.quiz" if view.chosen else "group.quiz_gone" if view.gone
               else "group.quiz_default")  # gone: the admins' choice was removed
        quiz = t(view.lang, key, title=view.quiz_title)
        lang = (t(view.lang, "group.lang", name=t(view.group_lang, "language.name"))
                if view.group_lang else t(view.lang, "group.lang_default"))
        lines = [t(view.lang, "settings.saved")] if saved else []
        server = "" if self.shared_chats else "_server"  # Discord: slash options
        lines += [t(view.lang, f"group.title{server}"), quiz, lang,
                  t(view.lang, f"group.how{server}"), t(view.lang, f"group.own{server}")]
        # a change is news for the group; a look is for the one who asked (Discord)
        return Reply(send=(Card(self.m.escape("\n".join(lines))),), public=saved)

    def removed(self, lang: str, title: str) -> Reply:
        return self.text(lang, "admin.removed", title=title)

    def _start(self, lang: str, quiz_id: str, actor: Actor) -> Button:
        return Button(self.cat.t(lang, "button.start"),
                      StartPayload.of(actor.user_id, quiz_id).pack(), "primary")

    def _language_rows(self, actor: Actor) -> tuple[tuple[Button, ...], ...]:
        owner = actor.user_id
        return (tuple(Button(self.cat.t(code, "language.name"),
                             LanguagePayload.of(owner, code).pack())
                      for code in self.cat.languages),)


def _footer(cat: Catalogue, p: QuestionPrompt) -> str:
    """A question's footer: its quiz's title, or "Practice: <topic>" for one topic's."""
    return p.quiz_title if p.topic is None else cat.t(p.lang, "practice.title",
                                                      topic=render.content_text(p.lang, p.topic))


def _title(cat: Catalogue, prompt: QuestionPrompt) -> str:
    return (f"{render.question_header(cat, prompt)}  "
            f"{render.progress_bar(prompt.position, prompt.total)}")
