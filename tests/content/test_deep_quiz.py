"""parallelism-deep: complete in both languages, not answerable from the shape of its options,
and its computed answers agree with the formulas and the schedule simulation."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from bot.domain.pipeline import ScheduleSpec, simulate
from bot.domain.quiz import Quiz
from tests.content.quizzes import question, right


@pytest.fixture(scope="module")
def deep(quizzes: dict[str, Quiz]) -> Quiz:
    return quizzes["parallelism-deep"]


def test_pictures_match_the_numbers_in_the_explanations(quizzes: dict[str, Quiz]):
    pictured = [q for quiz in quizzes.values() for q in quiz.questions if q.schedule]
    assert len(pictured) >= 6
    for q in pictured:
        assert q.schedule is not None and q.image is not None
        bubble = simulate(q.schedule).bubble
        assert f"{bubble.numerator}/{bubble.denominator}" in q.explanation.get("en"), q.id
        assert f"{bubble.numerator}/{bubble.denominator}" in q.explanation.get("ur"), q.id


# --- the computed answers, recomputed ----------------------------------------------------------


def test_gpipe_bubble_answer(deep: Quiz):
    p, m = 8, 24
    f = Fraction(p - 1, m + p - 1)
    assert simulate(ScheduleSpec("gpipe", p, m)).bubble == f
    assert right(question(deep, "d01-gpipe-bubble")).startswith(f"{f.numerator}/{f.denominator}")


def test_interleaved_bubble_answer(deep: Quiz):
    f = simulate(ScheduleSpec("interleaved", 4, 8, 2)).bubble
    assert f == Fraction(3, 19)
    assert right(question(deep, "d02-interleaved-bubble")).startswith("3/19")


def test_activations_in_flight_answer(deep: Quiz):
    gpipe = simulate(ScheduleSpec("gpipe", 4, 8)).peak_in_flight(0)
    one = simulate(ScheduleSpec("1f1b", 4, 8)).peak_in_flight(0)
    assert right(question(deep, "d03-activations-in-flight")) == f"GPipe {gpipe}, 1F1B {one}"


def test_tensor_allreduce_bytes_answer(deep: Quiz):
    t, h, s, b, nbytes = 4, 8192, 4096, 1, 2
    per_allreduce = 2 * (t - 1) / t * b * s * h * nbytes
    assert right(question(deep, "d04-tensor-allreduce-bytes")) == (
        f"About {round(2 * per_allreduce / 1e6)} MB")


def test_zero3_gpu_count_answer(deep: Quiz):
    states_gb = 70e9 * 16 / 1e9
    assert right(question(deep, "d05-zero3-gpus-needed")) == f"N = {math.ceil(states_gb / 60)}"


def test_activation_memory_answer(deep: Quiz):
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    per_gpu = s * b * h * (34 + 5 * a * s / h) / t
    assert right(question(deep, "d16-activation-memory")) == f"About {per_gpu / 1e9:.2f} GB"


def test_3d_layout_answer(deep: Quiz):
    assert right(question(deep, "d06-3d-layout")).startswith(f"d = {512 // (8 * 8)};")


# --- the expert review of issue 20, fixed in both languages: (quiz, question, language,
# what must be said, what must not) -----------------------------------------------------------
REVIEW = [
    ("parallelism-deep", "d18-tensor-across-nodes", "en",
     ["one ring per NIC", "200 GB/s per node", "1.3-2×", "doubles", "critical path",
      "GEMMs half as wide"], ["more than 10 ms", "16 times thinner", "InfiniBand speed"]),
    ("parallelism-deep", "d18-tensor-across-nodes", "ur",
     ["ہر NIC پر الگ ring", "200 GB/s", "critical path", "latency"],
     ["10 ms سے زیادہ", "سولہ گنا"]),
    ("parallelism", "q5-tensor-parallel-within-node", "en",
     ["one ring per NIC", "about 200 GB/s", "1.5× slower", "latency on the critical path"],
     ["14 ms", "longer than the compute"]),
    ("parallelism", "q5-tensor-parallel-within-node", "ur",
     ["ہر NIC پر الگ ring", "200 GB/s", "latency"], ["14 ms"]),
    ("parallelism-deep", "d13-zero3-volume", "en",
     ["3Ψ per forward and backward", "4 × 3Ψ = 12Ψ", "one micro-batch"], []),
    ("parallelism-deep", "d13-zero3-volume", "ur", ["4 × 3Ψ = 12Ψ", "ایک micro-batch"], []),
    ("parallelism-deep", "d12-fsdp-vs-tensor", "en",
     ["1.5× with one micro-batch per step", "m·3Ψ"], ["about 1.5× plain"]),
    ("parallelism-deep", "d12-fsdp-vs-tensor", "ur", ["m·3Ψ"], []),
    ("parallelism-deep", "d05-zero3-gpus-needed", "en", ["1.5× only with one micro-batch"], []),
    ("parallelism", "q6-megatron-lm", "en", ["benchmarked", "not trained to convergence"],
     ["to train a 1-trillion"]),
    ("parallelism", "q6-megatron-lm", "ur", ["benchmark", "مکمل ٹرین نہیں"], []),
    ("parallelism", "q7-stage-activations", "en",
     ["gradients of tied input/output embeddings are all-reduced"], []),
    ("parallelism", "q7-stage-activations", "ur", ["embeddings کے گریڈینٹس کا"], []),
    ("parallelism-deep", "d22-tied-embeddings", "en",
     ["finalize_model_grads", "after the data-parallel gradient sync", "not overlapped"],
     ["can overlap with the data-parallel"]),
    ("parallelism-deep", "d22-tied-embeddings", "ur", ["finalize_model_grads", "overlap نہیں"], []),
    ("parallelism-deep", "d16-activation-memory", "en",
     ["LayerNorm inputs (4)", "dropout masks (2)", "MLP linear layers (4)"],
     ["residual inputs"]),
    ("parallelism-deep", "d16-activation-memory", "ur",
     ["LayerNorm کے ان پٹس (4)", "dropout masks (2)", "خطی لیئرز کے ان پٹس (4)"], ["residual"]),
    ("parallelism-deep", "d06-3d-layout", "en", ["--overlap-grad-reduce", "off by default"],
     ["overlapped with the backward pass"]),
    ("parallelism-deep", "d06-3d-layout", "ur", ["--overlap-grad-reduce", "ایک ہی نوڈ پر"],
     ["ایک ہی نوڈ ہوتے"]),
    ("parallelism-deep", "d03-activations-in-flight", "en", ["GPU1", "GPU4"], ["GPU d", "p−d−1"]),
    ("parallelism-deep", "d03-activations-in-flight", "ur", ["GPU1", "GPU4"], ["p−d−1"]),
]


@pytest.mark.parametrize("quiz_id, qid, lang, said, unsaid", REVIEW)
def test_review_findings_are_fixed(quizzes: dict[str, Quiz], quiz_id, qid, lang, said, unsaid):
    q = quizzes[quiz_id].question(qid)
    assert q is not None
    text = "\n".join([q.text.get(lang), q.explanation.get(lang),
                      *(o.why_not.get(lang) for o in q.options if o.why_not)])
    for phrase in said:
        assert phrase in text, phrase
    for phrase in unsaid:
        assert phrase not in text, phrase
