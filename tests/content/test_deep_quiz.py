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
    q = question(deep, "d03-activations-in-flight")
    assert right(q) == f"GPipe {gpipe}, 1F1B {one}"
    # A full 2 x 2 design: each count of the key is in exactly one wrong option (the review
    # read the key off 'GPipe 8' shared by two options).
    texts = [o.text.get("en") for o in q.options]
    assert sum(f"GPipe {gpipe}," in t for t in texts) == 2
    assert sum(t.endswith(f"1F1B {one}") for t in texts) == 2


def test_fsdp_against_tensor_asks_what_each_sends(deep: Quiz):
    """The stem asked what *differs* while two options began 'Both ...': a reader dropped
    them unread (the review). It now asks what each sends, which 'both' can answer."""
    q = question(deep, "d12-fsdp-vs-tensor")
    assert "What does each of them communicate" in q.text.get("en")
    assert "differs" not in q.text.get("en") and "فرق" not in q.text.get("ur")


def test_tensor_allreduce_options_form_no_doubling_chain(deep: Quiz):
    """101, 201 and 403 MB doubled twice and the key sat in the middle (the review)."""
    q = question(deep, "d04-tensor-allreduce-bytes")
    values = [float(o.text.get("en").split()[1]) for o in q.options]
    assert not any(abs(b - 2 * a) < 2 and abs(c - 2 * b) < 3
                   for a in values for b in values for c in values)


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
    q = question(deep, "d16-activation-memory")
    assert right(q) == f"About {per_gpu / 1e9:.2f} GB"
    softmax_whole = s * b * h * (34 / t + 5 * a * s / h)
    assert f"About {softmax_whole / 1e9:.1f} GB" in [o.text.get("en") for o in q.options]
    # No option is twice another: 0.72 GB (two bytes counted twice) named 0.36 as the base.
    values = [float(o.text.get("en").split()[1]) for o in q.options]
    assert not any(abs(x - 2 * y) < 0.02 for x in values for y in values)


def test_3d_layout_answer(deep: Quiz):
    assert right(question(deep, "d06-3d-layout")).startswith(f"d = {512 // (8 * 8)};")


def test_deeper_pipeline_at_a_fixed_batch(deep: Quiz):
    n, t, batch, b = 1024, 8, 256, 1
    bubbles = []
    for p in (2, 8):
        m = batch // (b * n // (t * p))
        bubbles.append((m, Fraction(p - 1, m + p - 1)))
    assert bubbles == [(4, Fraction(1, 5)), (16, Fraction(7, 23))]
    assert simulate(ScheduleSpec("1f1b", 8, 16)).bubble == Fraction(7, 23)
    key = right(question(deep, "d07-deeper-pipeline-fixed-batch"))
    assert key.startswith("m rises from 4 to 16") and f"7/23 ≈ {float(Fraction(7, 23)):.0%}" in key


def test_fsdp_overlap_needs_a_fixed_token_count(deep: Quiz):
    flops, link = 156e12, 25e9  # per GPU; 3Ψ bf16 values (6Ψ bytes) against 6Ψ FLOPs a token
    tokens = flops / link
    assert round(tokens, -2) == 6200
    assert right(question(deep, "d10-fsdp-overlap-tokens")).startswith(
        f"About {round(tokens, -2):,.0f} tokens, the same")
    assert f"{tokens:,.0f}" in question(deep, "d10-fsdp-overlap-tokens").explanation.get("en")


def test_exposed_gradient_sync_follows_the_drain(deep: Quiz):
    schedule = simulate(ScheduleSpec("1f1b", 8, 32), backward=2)  # one unit = 10 ms
    ends = [max(op.end for op in schedule.ops if op.stage == s) for s in range(8)]
    drain_ms = (ends[0] - ends[-1]) * 10
    assert drain_ms == 7 * 20 == 140 and ends[0] == schedule.makespan
    sync_ms = 120
    key = right(question(deep, "d14-exposed-grad-sync"))
    assert key.startswith(f"About {sync_ms} ms") and f"{drain_ms - sync_ms} ms" in key
    explanation = question(deep, "d14-exposed-grad-sync").explanation.get("en")
    assert f"{schedule.makespan * 10:,} ms" in explanation
    assert f"{ends[-1] * 10:,} ms" in explanation


def test_first_stage_memory_follows_the_micro_batch(deep: Quiz):
    def stage_one(p: int, m: int, v: int = 1) -> Fraction:  # in one micro-batch's L layers
        kind = "interleaved" if v > 1 else "1f1b"
        return Fraction(simulate(ScheduleSpec(kind, p, m, v)).peak_in_flight(0), p * v)
    base = stage_one(8, 32)
    assert stage_one(16, 32) == base == stage_one(8, 64) == 1  # more stages, more micro-batches
    interleaved = stage_one(8, 32, 2)
    assert interleaved == 1 + Fraction(8 - 1, 8 * 2)  # Korthikanti: 1 + (p−1)/(p·v)
    q = question(deep, "d11-first-stage-memory")
    assert right(q).startswith("Halving the micro-batch")
    assert f"= {float(interleaved):.2f} times" in q.options[2].why_not.get("en")
    assert "7/71 instead of 7/39" in q.explanation.get("en")
    assert simulate(ScheduleSpec("1f1b", 8, 64)).bubble == Fraction(7, 71)


def test_micro_batch_size_trade_off(deep: Quiz):
    p, per_replica = 8, 512 // 8
    t = {1: 10, 2: 17, 4: 30, 8: 58}  # ms per micro-batch per stage, forward and backward
    step = {b: (per_replica // b + p - 1) * ms for b, ms in t.items()}
    assert step == {1: 710, 2: 663, 4: 690, 8: 870}
    best = min(step, key=step.__getitem__)
    for b in t:  # the slot count is the simulated 1F1B makespan
        schedule = simulate(ScheduleSpec("1f1b", p, per_replica // b), backward=2)
        assert schedule.makespan == 3 * (per_replica // b + p - 1)  # a slot: F, then B = 2F
    q = question(deep, "d17-micro-batch-size")
    assert right(q).startswith(f"Size {best}, about {step[best]} ms")
    assert all(f"about {ms} ms" in " ".join(o.text.get("en") for o in q.options)
               for ms in step.values())


def test_distributed_optimizer_memory(deep: Quiz):
    psi, d = 5e9, 8
    per_param = 2 + 4 + 12 / d  # bf16 weights and fp32 main_grad whole, fp32 state sharded
    q = question(deep, "d20-distributed-optimizer-memory")
    assert right(q).startswith(f"About {psi * per_param / 1e9:.1f} GB")
    # the distributed optimizer reduce-scatters its whole fp32 gradient buffer (Megatron
    # Core's docs); the explanation said it all-reduced them, as plain data parallelism does
    for lang, said in (("en", "reduce-scatters them"), ("ur", "reduce-scatter کرتا ہے")):
        text = q.explanation.get(lang)
        assert said in text and "all-reduce" not in text, lang


def test_tensor_parallelism_across_nodes_numbers(deep: Quiz):
    mb = 2048 * 12288 * 2 / 1e6  # one GPT-3 all-reduce, MB
    across = 96 * 4 * 2 * 15 / 16 * mb / 200e3  # seconds: 200 GB/s = 200e3 MB/s
    within = 48 * 4 * 2 * 7 / 8 * mb / 300e3
    layer = 72 * 2048 * 12288**2 * (1 + 2048 / (6 * 12288)) / 8 / 312e12
    compute = 48 * layer
    assert (round(across * 1e3), round(within * 1e3), round(compute * 1e3, -1)) == (181, 56, 440)
    slowdown = (compute + across) / (compute + within) - 1
    text = question(deep, "d18-tensor-across-nodes").explanation.get("en")
    assert "180 ms" in text and "56 ms" in text and "440 ms" in text
    assert f"{slowdown:.0%}" == "25%" and "25% longer" in text


def test_tied_embedding_gradients_in_fp32(deep: Quiz):
    values = 50257 * 12288
    text = question(deep, "d22-tied-embeddings").explanation.get("en")
    assert f"{values * 4 / 1e9:.1f} GB" in text and f"{values * 2 / 1e9:.1f} GB" in text


def test_zero2_reduces_every_micro_batch(deep: Quiz):
    m = 4
    assert f"m·Ψ + Ψ = {m + 1}Ψ" in question(deep, "d13-zero3-volume").explanation.get("en")


def test_no_question_gives_away_another(deep: Quiz):
    """The leaks the review found (d15 gave d16's answer, d10's option gave d11's, d08's
    picture gave d02's, d12 gave d13's) stay out."""
    def said(qid: str) -> str:
        q = question(deep, qid)
        return "\n".join([q.explanation.get("en"), *(o.text.get("en") for o in q.options)])
    assert "0.36 GB" not in said("d15-selective-recomputation")
    assert "3/19" not in said("d08-interleaving-cost")
    assert "m·3Ψ" not in said("d12-fsdp-vs-tensor") and "12Ψ" not in said("d05-zero3-gpus-needed")
    assert "v times more sends" not in said("d21-scatter-gather")
    for q in deep.questions:  # Ulysses' head cap is long-context's question (l05)
        assert "whole heads" not in said(q.id) and "Ulysses" not in said(q.id), q.id


# --- the expert review of issue 20, fixed in both languages: (quiz, question, language,
# what must be said, what must not) -----------------------------------------------------------
REVIEW = [
    ("parallelism-deep", "d18-tensor-across-nodes", "en",
     ["one ring per NIC", "200 GB/s of bus bandwidth", "doubles", "critical path",
      "GEMMs half as wide", "440 ms of compute"],
     ["more than 10 ms", "16 times thinner", "InfiniBand speed", "measured", "halves",
      "per node"]),
    ("parallelism-deep", "d18-tensor-across-nodes", "ur",
     ["ہر NIC پر الگ ring", "200 GB/s", "critical path", "latency", "25%"],
     ["10 ms سے زیادہ", "سولہ گنا", "فی نوڈ"]),
    ("parallelism", "q5-tensor-parallel-within-node", "en",
     ["one ring per NIC", "about 200 GB/s", "1.5× slower", "latency on the critical path"],
     ["14 ms", "longer than the compute"]),
    ("parallelism", "q5-tensor-parallel-within-node", "ur",
     ["ہر NIC پر الگ ring", "200 GB/s", "latency"], ["14 ms"]),
    ("parallelism-deep", "d13-zero3-volume", "en",
     ["3Ψ per forward and backward", "4 × 3Ψ = 12Ψ", "one micro-batch", "Stage 2",
      "after every backward", "#2252"], ["stages 1 and 2 keep"]),
    ("parallelism-deep", "d13-zero3-volume", "ur", ["4 × 3Ψ = 12Ψ", "ایک micro-batch", "5Ψ"],
     []),
    ("parallelism-deep", "d12-fsdp-vs-tensor", "en",
     ["With one micro-batch per step that is 1.5×"], ["about 1.5× plain"]),
    ("parallelism-deep", "d12-fsdp-vs-tensor", "ur", ["1.5 گنا"], []),
    ("parallelism-deep", "d19-more-micro-batches", "en", ["min(m, p)", "doubles, not 8×"], []),
    ("parallelism-deep", "d19-more-micro-batches", "ur", ["min(m, p)", "8 گنا نہیں"], []),
    ("parallelism-deep", "d22-tied-embeddings", "en", ["main_grad", "fp32", "2.5 GB"],
     ["1.2 GB in bf16,"]),
    ("parallelism-deep", "d22-tied-embeddings", "ur", ["main_grad", "2.5 GB"], []),
    ("parallelism-deep", "d16-activation-memory", "en", ["no FlashAttention"], []),
    ("parallelism-deep", "d21-scatter-gather", "ur", ["اسٹیج کی باؤنڈری پر 50 MB"],
     ["50 MB کی حد"]),
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
