"""The shipped quizzes: load, complete in every language, within platform limits, correct."""

from __future__ import annotations

import re

import pytest

from bot.i18n import Catalogue
from bot.limits import (
    FEEDBACK_LIMIT,
    QUESTION_LIMIT,
    answered_size,
    sample_prompt,
    worst_feedback,
)
from bot.quiz import Quiz, default_content_dir, iter_quiz_files, load_file
from bot.render import question_text

FILES = list(iter_quiz_files([default_content_dir()]))


def test_content_folder_has_quizzes():
    assert FILES, "content/ ships no quiz"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_file_loads_and_is_complete(path):
    quiz = load_file(path)
    assert set(quiz.languages) >= {"en", "ur"}
    texts = [quiz.title, quiz.description]
    for q in quiz.questions:
        texts += [q.text, q.explanation, *(o.text for o in q.options),
                  *(o.why_not for o in q.options if o.why_not)]
    for text in texts:
        assert {lang for lang, _ in text.values} == set(quiz.languages)
        assert all(value.strip() for _, value in text.values)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("lang", ["en", "ur"])
def test_rendered_sizes_fit_the_platforms(path, lang, catalogue: Catalogue):
    quiz = load_file(path)
    for q in quiz.questions:
        assert len(question_text(catalogue, sample_prompt(quiz, q, lang))) <= QUESTION_LIMIT
        assert answered_size(catalogue, worst_feedback(quiz, q, lang)) <= FEEDBACK_LIMIT


# --- the parallelism quiz, as the seed gave it ------------------------------------------------

SEED_ORDER = [
    "q1-why-model-parallelism", "q2-tensor-parallelism", "q3-pipeline-bubble",
    "q4-micro-batches", "q5-tensor-parallel-within-node", "q6-megatron-lm",
    "q7-stage-activations", "q8-tensor-parallel-communication",
]
# (question, right option in English) checked against GPipe, Megatron-LM and Narayanan 2021.
ANSWERS = [
    "single GPU", "inside a layer", "wait for upstream", "micro-batches", "NVLink",
    "Megatron-LM", "Activation tensors", "partial results",
]
# Machine-translation errors from the seed that must not come back.
SEED_MISTAKES = ["ہم آہنگی", "بولی", "سیکھنا", "پانڈا", "پھٹنے والے میلان", "تمام کمی",
                 "لڑکھڑاتے"]


@pytest.fixture(scope="module")
def parallelism(quizzes: dict[str, Quiz]) -> Quiz:
    return quizzes["parallelism"]


def test_parallelism_quiz_shape(parallelism: Quiz):
    assert parallelism.difficulty == "hard"
    assert [q.id for q in parallelism.questions] == SEED_ORDER
    assert all(len(q.options) == 4 for q in parallelism.questions)
    assert parallelism.questions[6].text.get("en") == (
        "What data must move between stages in pipeline parallelism during a forward pass?")
    assert parallelism.questions[7].options[3].text.get("en") == (
        "Devices exchange partial results or activations within layers during computation")


@pytest.mark.parametrize("index", range(8))
def test_parallelism_answers_explanations_references(parallelism: Quiz, index: int):
    q = parallelism.questions[index]
    assert ANSWERS[index] in q.options[q.correct].text.get("en")
    for lang in ("en", "ur"):
        assert 300 <= len(q.explanation.get(lang)) <= 700, (q.id, lang)
    for i, option in enumerate(q.options):
        assert (option.why_not is None) == (i == q.correct), (q.id, i)
    assert 1 <= len(q.references) <= 2
    assert all(r.url.startswith("https://") for r in q.references)


def test_urdu_is_reviewed_not_the_seed_machine_translation(parallelism: Quiz):
    urdu = "\n".join(
        t.get("ur") for q in parallelism.questions
        for t in (q.text, q.explanation, *(o.text for o in q.options)))
    for mistake in SEED_MISTAKES:
        assert not re.search(rf"(^|\s){mistake}", urdu), mistake
    assert "متوازیت" in urdu  # parallelism
    for term in ("GPU", "NVLink", "Megatron-LM", "scikit-learn", "pandas", "OpenCV", "all-reduce"):
        assert term in urdu, term
    # 7 and 8 were English-only in the seed: now translated.
    assert re.search("[\u0600-\u06ff]", parallelism.questions[7].text.get("ur"))
