"""What every feature shares: the quizzes, the languages, who is an admin, and how a
stored session's question becomes a prompt.

`Library` is handed to the solo sessions, spaced review and rounds at the composition root;
it holds the quizzes (replaced whole on /reload) and asks the store only for a user's
language.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Collection, Iterable, Mapping
from string import ascii_uppercase
from typing import Any

from bot.domain import learning, numeric
from bot.domain.errors import ContentError, NotAdmin, ReloadFailed, UnknownQuiz, UnsupportedLanguage
from bot.domain.numeric import TypedError
from bot.domain.platforms import platform
from bot.domain.quiz import Question, Quiz, Text, built_in_ids, entry_quiz
from bot.domain.quiz.computed import draw, drawn_values, seed_of, value_text
from bot.domain.quiz.model import LEVELS
from bot.domain.results import Actor, QuestionPrompt, QuizCount, QuizInfo, SessionKind
from bot.domain.shuffle import deal
from bot.store.commands import sessions_sql
from bot.store.protocol import Store
from bot.store.rows import NewSession, SessionRow


class Library:
    """The quizzes and languages on offer, and a user's language."""

    def __init__(self, store: Store, quizzes: Mapping[str, Quiz], *,
                 languages: tuple[str, ...] = ("en", "ur"), default_lang: str = "en",
                 default_quiz: str | None = None,
                 admins: Mapping[str, frozenset[str]] | None = None,
                 reload: Callable[[], Mapping[str, Quiz]] | None = None,
                 due_titles: Mapping[str, str] | None = None,
                 clock: Callable[[], float]) -> None:
        if not quizzes:
            raise ValueError("the engine needs at least one quiz")
        self.store, self.clock = store, clock
        self.quizzes = dict(quizzes)  # shipped and installed: what every feature serves
        self._shipped = dict(quizzes)  # the files (replaced on /reload)
        self._installed: dict[str, Quiz] = {}  # from the database (`bot.features.installed`)
        self._built_in = built_in_ids()  # quizbot's own, on parallelism; the rest added here
        self.languages = languages
        self.default_lang = default_lang
        self._default_quiz = default_quiz
        self._admins = {k: frozenset(map(str, v)) for k, v in (admins or {}).items()}
        self._reload = reload
        self._due_titles = dict(due_titles or {"en": "Spaced review"})
        self._derived: tuple[dict[str, Quiz], dict[str, Any]] | None = None  # see `_memo`

    def quiz(self, quiz_id: str | None = None) -> Quiz:
        """The quiz with this id, or the default one."""
        quiz_id = quiz_id or self.default_id
        try:
            return self.quizzes[quiz_id]
        except KeyError:
            raise UnknownQuiz(quiz=quiz_id, choices=self.choices()) from None

    @property
    def default_id(self) -> str:
        """The quiz /quiz starts when none is named: config's `quiz.default` while it is
        shipped or installed, else the shipped entry quiz (an installed quiz never becomes
        everyone's default by sorting first; a group may choose one)."""
        if self._default_quiz is not None and self._default_quiz in self.quizzes:
            return self._default_quiz
        return entry_quiz(self._shipped or self.quizzes)

    def missing_default(self) -> str | None:
        """Config's `quiz.default` when no shipped or installed quiz has that id."""
        wanted = self._default_quiz
        return wanted if wanted is not None and wanted not in self.quizzes else None

    def ordered(self) -> list[Quiz]:
        """Every quiz in catalogue order: by level, the default quiz first within its
        level, then by id."""
        def rank(quiz: Quiz) -> tuple[int, bool, str]:
            level = LEVELS.index(quiz.level) if quiz.level in LEVELS else len(LEVELS)
            return level, quiz.id != self.default_id, quiz.id
        return sorted(self.quizzes.values(), key=rank)

    def choices(self, only: Collection[str] | None = None) -> Text:
        """The valid quizzes (`only` these ids, if given) by title, one a line, in every
        language (an unknown or several-named quiz's refusal lists them; every command takes
        a title, `bot.features.naming`): never an id to copy out of brackets."""
        shown = [q for q in self.ordered() if only is None or q.id in only]
        langs = sorted({lang for quiz in self.quizzes.values() for lang in quiz.languages})
        return Text(tuple((lang, "".join(f"\n• {q.title.get(lang)}" for q in shown))
                          for lang in langs))

    def quiz_count(self) -> QuizCount:
        """How many quizzes are quizbot's own and how many were added here."""
        built_in = len(self.quizzes.keys() & self._built_in)
        return QuizCount(built_in, len(self.quizzes) - built_in)

    def quiz_infos(self, lang: str) -> tuple[QuizInfo, ...]:
        """Every quiz, titled in `lang`, sorted by id."""
        return tuple(self.quiz_info(lang, quiz_id) for quiz_id in sorted(self.quizzes))

    def quiz_info(self, lang: str, quiz_id: str | None = None) -> QuizInfo:
        """One quiz (the default one if not named), titled in `lang`."""
        quiz = self.quiz(quiz_id)
        return QuizInfo(quiz.id, quiz.title.get(lang), quiz.description.get(lang),
                        quiz.difficulty, len(quiz.questions), quiz.languages, quiz.level,
                        quiz.next)

    def topics(self) -> Mapping[str, Quiz]:
        """Every topic a question carries -> a quiz that names it (the first in catalogue
        order)."""
        memo = self._memo()
        if "topics" not in memo:
            found: dict[str, Quiz] = {}
            for quiz in self.ordered():
                for q in quiz.questions:
                    for topic in q.topics:
                        found.setdefault(topic, quiz)
            memo["topics"] = found
        topics: Mapping[str, Quiz] = memo["topics"]
        return topics

    def topics_of(self) -> Mapping[tuple[str, str], tuple[str, ...]]:
        """(quiz id, question id) -> the question's topics, for every question that has
        any, in quiz order (every finished summary's mastery walks it)."""
        memo = self._memo()
        if "topics_of" not in memo:
            memo["topics_of"] = {(quiz.id, q.id): q.topics for quiz in self.quizzes.values()
                                 for q in quiz.questions if q.topics}
        topics_of: Mapping[tuple[str, str], tuple[str, ...]] = memo["topics_of"]
        return topics_of

    def topic_name(self, topic: str, lang: str) -> str:
        """A topic's name in `lang` (its id when no quiz names it)."""
        quiz = self.topics().get(topic)
        return quiz.topic_name(topic, lang) if quiz is not None else topic

    def due_quiz(self) -> Quiz:
        """Every question of every quiz under a qualified id (rebuilt after a reload)."""
        memo = self._memo()
        if "due" not in memo:
            names = tuple((topic, name) for topic, quiz in sorted(self.topics().items())
                          for tid, name in quiz.topics if tid == topic)
            memo["due"] = learning.due_quiz(self.quizzes, self._due_titles, names)
        due: Quiz = memo["due"]
        return due

    def _memo(self) -> dict[str, Any]:
        """Values derived from the quizzes served alone (each answer's summary reads the
        topics), dropped when those change: `_serve` puts a new dict in `quizzes`."""
        if self._derived is None or self._derived[0] is not self.quizzes:
            self._derived = (self.quizzes, {})
        return self._derived[1]

    def session_quiz(self, quiz_id: str) -> Quiz | None:
        """The quiz a stored session runs on (the due quiz for spaced review)."""
        return self.due_quiz() if quiz_id == learning.DUE_QUIZ else self.quizzes.get(quiz_id)

    # --- languages and admins --------------------------------------------------------------

    def resolve_language(self, chosen: str | None, locale: str | None) -> str:
        """The user's choice, else their app's language if we ship it, else the default."""
        if chosen in self.languages:
            return chosen
        hint = (locale or "").split("-")[0].split("_")[0].lower()
        return hint if hint in self.languages else self.default_lang

    async def language(self, actor: Actor) -> str:
        """The language to talk to this user in (registers the user on first contact)."""
        chosen = await sessions_sql.touch_user(self.store, actor.platform, actor.user_id,
                                               actor.display_name, self.clock())
        return self.resolve_language(chosen, actor.locale)

    async def set_language(self, actor: Actor, lang: str) -> str:
        """Persist the user's language; raise UnsupportedLanguage for one we do not ship."""
        if lang not in self.languages:
            raise UnsupportedLanguage(lang=lang)
        now = self.clock()
        await sessions_sql.touch_user(self.store, actor.platform, actor.user_id,
                                      actor.display_name, now)
        await self.store.write(sessions_sql.set_language, actor.platform, actor.user_id, lang,
                               now)
        return lang

    def is_admin(self, actor: Actor) -> bool:
        """True when the config lists this user as an admin on their platform."""
        return actor.user_id in self._admins.get(actor.platform, frozenset())

    async def reload(self, actor: Actor) -> tuple[QuizInfo, ...]:
        """Admin only: re-read quiz files. Unfinished sessions whose questions vanished restart.

        Files that do not validate change nothing: ReloadFailed lists their problems.
        """
        if not self.is_admin(actor) or self._reload is None:
            raise NotAdmin()
        try:
            # reading and sampling the files takes a second: not on the event loop
            quizzes = dict(await asyncio.to_thread(self._reload))
        except ContentError as exc:
            raise ReloadFailed(problems="\n".join(exc.problems[:10])) from exc
        self._shipped = quizzes
        self._serve()
        return self.quiz_infos(await self.language(actor))

    def is_shipped(self, quiz_id: str) -> bool:
        """True for a quiz from the content files (an installed one may not replace it)."""
        return quiz_id in self._shipped

    def set_installed(self, quizzes: Mapping[str, Quiz]) -> None:
        """Serve these installed quizzes beside the shipped ones (never over them)."""
        self._installed = {k: q for k, q in quizzes.items() if k not in self._shipped}
        self._serve()

    def _serve(self) -> None:
        # a new dict: `_memo` is keyed by it
        self.quizzes = {**self._installed, **self._shipped}


def new_session(actor: Actor, quiz: Quiz, kind: SessionKind, questions: list[Question],
                rng: random.Random, *, now: float, shuffle: bool = False,
                topic: str | None = None) -> NewSession:
    """A session over `questions` (shuffled if asked), each with its options shuffled;
    `topic`: the topic a practice session is for."""
    order, orders = deal(rng, questions, shuffle=shuffle)
    return NewSession(actor.platform, actor.user_id, actor.chat_id, quiz.id, kind,
                      tuple(q.id for q in order), orders,
                      seed=rng.getrandbits(62),  # this attempt's numbers (computed questions)
                      started_at=now, topic=topic)


def typing_private(row: SessionRow) -> bool:
    """Whether a session's questions take typed numbers: only where nobody else sees the
    learner's quiz (a private chat; a server where the platform shows it to them alone),
    since in a group a text message is not an answer."""
    return row.chat_id is None or platform(row.platform).private_in_servers


def typed_unit(quiz: Quiz, row: SessionRow, position: int) -> str | None:
    """The unit a typed answer to question `position` is read in; None when the question
    takes taps only (it is not computed)."""
    question = quiz.question(row.question_ids[position])
    return None if question is None or question.computed is None else question.computed.unit


def typed_shown(quiz: Quiz, row: SessionRow, position: int, value: float | None,
                lang: str) -> str | None:
    """A typed value of question `position` as its options write theirs in `lang`, through
    the same option template ("60.0 ms", "p = 32": the learner who typed "60 ms", "32" or
    "0.06 s" compares like with like); None for a tap. Where the options' rounding would
    read as another verdict, or move a number that is no option by half the question's
    tolerance or more ("4.096" typed for "m = {value:d}" is not "m = 4"), the value's own
    digits ("4.096"); a number taken as an option reads as that option does."""
    question = quiz.question(row.question_ids[position])
    if value is None or question is None or question.computed is None:
        return None
    c = question.computed
    text = value_text(question, seed_of(row.seed, row.id), value, lang)
    if text is not None:
        _env, values = drawn_values(question, seed_of(row.seed, row.id))
        taken = numeric.match(numeric.Reading((value,), ""), [float(v) for v in values],
                              c.tolerance, c.absolute)
        again = typed_choice(quiz, row, position, text)
        if (isinstance(again, tuple)
                and again[0] == (numeric.TYPED_OTHER if taken is None else taken)
                and (taken is not None
                     or numeric.close(again[1], value, c.tolerance / 2,
                                      None if c.absolute is None else c.absolute / 2))):
            return text
    return numeric.shown(value, c.unit, _own_word(question))


def _own_word(question: Question) -> str:
    """The word the options show after the number that is no declared unit ("nm")."""
    c = question.computed
    if c is None or not c.choices[0].text:
        return ""
    return numeric.option_word(c.choices[0].text[0][1].source)


def typed_example(quiz: Quiz, row: SessionRow, position: int) -> str | None:
    """What a typed answer to question `position` could look like ("1.2 GB"), none of its
    options; None when the question takes taps only."""
    question = quiz.question(row.question_ids[position])
    if question is None or question.computed is None:
        return None
    _env, values = drawn_values(question, seed_of(row.seed, row.id))
    return numeric.example(question.computed.unit, [float(v) for v in values])


def typed_choice(quiz: Quiz, row: SessionRow, position: int, text: str
                 ) -> tuple[int, float] | TypedError | None:
    """What a typed answer to question `position` stands for: (the option it matches within
    the question's tolerance, in file order, else TYPED_OTHER; the value read), the reason
    it cannot be read, or None when the question takes taps only."""
    question = quiz.question(row.question_ids[position])
    if question is None or question.computed is None:
        return None
    c = question.computed
    _env, values = drawn_values(question, seed_of(row.seed, row.id))
    word = _own_word(question)
    shown_letter = text.strip().rstrip(").").upper()
    if len(shown_letter) == 1 and shown_letter in ascii_uppercase[:len(c.choices)]:
        # "B" typed where the buttons read A-E: the learner chose, in the wrong place
        return TypedError("typed.letter", letter=shown_letter, example=numeric.example(
            c.unit, [float(v) for v in values], word))
    if word:  # "689 nm" for an option "{value} nm": nm is shown, not read
        text = numeric.own_word(c.choices[0].text[0][1].source, text)
    try:  # "0.68 µm" for it is converted, "680 ms" refused naming nm
        reading = numeric.parse(text, c.unit, [float(v) for v in values], word)
    except TypedError as exc:
        return exc
    k = numeric.match(reading, [float(v) for v in values], c.tolerance, c.absolute)
    if hint := numeric.thousands_dot(reading, [float(v) for v in values], c.tolerance,
                                     c.absolute):
        return hint  # "4.096" for an option 4096: asked again, not judged
    if k is None:
        return numeric.TYPED_OTHER, reading.values[0]
    return k, next(v for v in reading.values
                   if numeric.close(v, float(values[k]), c.tolerance, c.absolute))


def question_at(quiz: Quiz, row: SessionRow, position: int) -> Question:
    """The question a fitting session shows at `position`, with the attempt's numbers when
    it is a computed one (the draw is a function of the session's seed and the question)."""
    question = quiz.question(row.question_ids[position])
    assert question is not None  # Quiz.fits() was checked
    return draw(question, seed_of(row.seed, row.id))


JOIN_SECONDS = 10.0  # a second start this soon (another device, a double tap) joins the first


def keep_since(now: float) -> float:
    """Attempts started since then are joined by a second start, not replaced."""
    return now - JOIN_SECONDS


def opened(quiz: Quiz, row: SessionRow, lang: str, new: NewSession | None = None, *,
           now: float) -> QuestionPrompt:
    """The prompt a start (/quiz, Try again, Review) answers with: the session's current
    question, marked `joined` when another request in the same chat started it under
    JOIN_SECONDS ago and nothing is answered yet (`new`: what this request would have
    started), so question 1 is not posted twice; started in another chat (a server, then a
    direct message), or before the learner changed language, it is posted here too, as
    nothing they can read is "just above"."""
    found = new is None or row.seed != new.seed
    here = new is None or new.chat_id == row.chat_id
    readable = row.lang_set_at is None or row.lang_set_at <= row.started_at
    return prompt(quiz, row, row.position, lang, resumed=found and row.position > 0,
                  joined=found and here and readable and row.position == 0
                  and row.started_at >= keep_since(now))


def prompt(quiz: Quiz, row: SessionRow, position: int, lang: str, *,
           resumed: bool = False, joined: bool = False, score: int | None = None
           ) -> QuestionPrompt:
    """The question at `position` of a stored session, in `lang`, options in its order
    (`score`: the running score shown, when it moved since `row` was read)."""
    question = question_at(quiz, row, position)
    options = question.options
    return QuestionPrompt(
        session_id=row.id, quiz_id=quiz.id, quiz_title=quiz.title.get(lang), lang=lang,
        kind=row.kind, position=position, total=len(row.question_ids),
        question_id=question.id, text=question.text.get(lang),
        options=tuple([options[i].text.get(lang) for i in row.option_orders[position]]),
        resumed=resumed, confidence=row.confidence,
        score=row.score if score is None else score, joined=joined,
        typed_example=typed_example(quiz, row, position) if typing_private(row) else None,
        topic=topic_shown(quiz, row, lang),
        only_in=() if lang in quiz.languages or row.kind == SessionKind.DUE else quiz.languages)


def topic_shown(quiz: Quiz, row: SessionRow, lang: str) -> str | None:
    """The name a practice session of one topic is shown under (None: not one); `quiz` is
    the spaced-review quiz it runs on, which carries every topic's name."""
    return None if row.topic is None else quiz.topic_name(row.topic, lang)


async def last_seeds(store: Store, who: Actor, quizzes: Iterable[Quiz]) -> dict[str, int]:
    """Per quiz with computed questions, the seed of the learner's last finished attempt,
    else of the one under way: /stats shows those questions with the numbers they saw."""
    seeds = {}
    for quiz in quizzes:
        if any(q.computed is not None for q in quiz.questions):
            last = (await store.read(sessions_sql.last_finished, who.platform, who.user_id,
                                     quiz.id)
                    or await store.read(sessions_sql.active_session, who.platform,
                                        who.user_id, quiz.id))
            if last is not None:
                seeds[quiz.id] = seed_of(last.seed, last.id)
    return seeds
