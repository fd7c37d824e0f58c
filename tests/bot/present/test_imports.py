"""What teachers' own quizzes make the bot say: the welcome and /help count what is on
offer truly whatever was added, in English and Urdu."""

from __future__ import annotations

from dataclasses import replace

from bot.domain.quiz import Quiz
from bot.domain.results import Actor, QuizCount
from bot.features.library import Library
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.plan import Planner
from bot.present.render import PLAIN

ACTOR = Actor("telegram", "7")


def _first_lines(cat: Catalogue, quizzes: dict[str, Quiz], count: QuizCount, lang: str
                 ) -> tuple[str, str]:
    library = Library(None, quizzes, clock=lambda: 0.0)  # type: ignore[arg-type]  # no store asked
    plan = Planner(cat, PLAIN, shared_chats=True)
    info = library.quiz_info(lang)
    welcome = plan.welcome(lang, info, ACTOR, quizzes=count).send[0].body
    help_ = plan.help(lang, info, ACTOR, quizzes=count).send[0].body
    return (strip_isolates(welcome.splitlines()[0]), strip_isolates(help_.splitlines()[0]))


def test_the_welcome_and_help_count_the_built_in_quizzes_and_name_the_others(
        catalogue: Catalogue, quizzes: dict[str, Quiz]) -> None:
    # With a teacher's chemistry quiz installed, the welcome said '7 quizzes on model and
    # pipeline parallelism': untrue of the one the learner's own teacher added.
    lines = {(lang, count): _first_lines(catalogue, quizzes, QuizCount(*count), lang)
             for lang in ("en", "ur") for count in ((6, 0), (6, 2), (0, 1), (1, 1))}
    assert lines["en", (6, 0)] == (
        "Welcome to quizbot: 6 quizzes on model and pipeline parallelism, from first steps to "
        "expert.", "6 quizzes on model and pipeline parallelism; start with "
        f"{quizzes['parallelism'].title.get('en')} (8 questions), with an explanation after "
        "every answer.")
    assert lines["en", (6, 2)][0] == (
        "Welcome to quizbot: 6 quizzes on model and pipeline parallelism, from first steps to "
        "expert, plus 2 more added here.")
    assert lines["en", (6, 2)][1].startswith(
        "6 quizzes on model and pipeline parallelism, plus 2 more added here; start with")
    assert lines["en", (0, 1)][0] == "Welcome to quizbot: 1 quiz to practise with."
    assert lines["en", (1, 1)][0].startswith(
        "Welcome to quizbot: 1 quiz on model and pipeline parallelism, from first steps to "
        "expert, plus 1 more added here.")
    assert lines["ur", (6, 0)][0] == ("quizbot میں خوش آمدید: ماڈل اور پائپ لائن متوازیت پر 6 "
                                      "کوئز، ابتدا سے ماہرانہ سطح تک۔")
    assert lines["ur", (6, 2)][0] == (
        "quizbot میں خوش آمدید: ماڈل اور پائپ لائن متوازیت پر 6 کوئز، ابتدا سے ماہرانہ سطح "
        "تک، اور یہاں شامل کیے گئے مزید 2 کوئز۔")
    assert lines["ur", (6, 2)][1].startswith(
        "ماڈل اور پائپ لائن متوازیت پر 6 کوئز، اور یہاں شامل کیے گئے مزید 2 کوئز؛")
    assert lines["ur", (0, 1)][0] == "quizbot میں خوش آمدید: مشق کے لیے 1 کوئز۔"
    assert lines["ur", (1, 1)][0].endswith("اور یہاں شامل کیا گیا مزید 1 کوئز۔")


def test_the_library_counts_quizbots_own_apart_from_those_added_here(
        quizzes: dict[str, Quiz]) -> None:
    library = Library(None, quizzes, clock=lambda: 0.0)  # type: ignore[arg-type]  # no store asked
    assert library.quiz_count() == QuizCount(len(quizzes), 0)
    chemistry = replace(quizzes["parallelism"], id="week-3-chemistry")
    library.set_installed({"week-3-chemistry": chemistry})
    assert library.quiz_count() == QuizCount(len(quizzes), 1)
    library.set_installed({})
    assert library.quiz_count() == QuizCount(len(quizzes), 0)
