"""parallelism-deep: complete in both languages, not answerable from the shape of its options,
and its computed answers agree with the formulas and the schedule simulation."""

from __future__ import annotations

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


def _matmul(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    return [[sum((x * y for x, y in zip(row, col, strict=True)), Fraction(0))
             for col in zip(*b, strict=True)] for row in a]


def _add(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    return [[x + y for x, y in zip(r, s, strict=True)] for r, s in zip(a, b, strict=True)]


def _t(a: list[list[Fraction]]) -> list[list[Fraction]]:
    return [list(col) for col in zip(*a, strict=True)]


def test_gpipe_micro_batches_give_the_whole_batchs_update(deep: Quiz):
    """d01 asked parallelism-numbers' n01 (GPipe's bubble) with fixed numbers; it now asks what
    micro-batching does to the update: nothing, once each loss is scaled by 1/m (GPipe §2.2)."""
    assert deep.question("d01-gpipe-bubble") is None
    batch, m = 256, 8
    size = batch // m
    assert size == 32
    # Least squares on one weight: the mean loss's gradient over the 256 samples is 1/m of the
    # sum of the 8 micro-batch means' gradients, all taken at the same weight.
    xs = [Fraction(i % 7 - 3, 5) for i in range(batch)]
    ys = [Fraction(i * 5 % 11 - 5, 3) for i in range(batch)]
    w = Fraction(1, 2)

    def grad(lo: int, hi: int) -> Fraction:
        return sum((2 * (w * x - y) * x for x, y in zip(xs[lo:hi], ys[lo:hi], strict=True)),
                   Fraction(0)) / (hi - lo)

    parts = [grad(k * size, (k + 1) * size) for k in range(m)]
    assert grad(0, batch) == sum(parts) / m != sum(parts)
    q = question(deep, "d01-gpipe-same-update")
    assert right(q).startswith("It does not, once each micro-batch's mean loss is divided by m")
    for lang in ("en", "ur"):
        assert "BatchNorm" in q.explanation.get(lang) and "BatchNorm" in q.text.get(lang)


def test_interleaved_chunks_are_dealt_round_robin(deep: Quiz):
    """d02 asked n03's interleaved bubble with fixed numbers; it now asks where Megatron puts
    the chunks (Narayanan et al. §2.2.2: device 1 holds layers 1, 2, 9 and 10 of 16)."""
    assert deep.question("d02-interleaved-bubble") is None
    layers, p, v = 16, 4, 2
    per_chunk = layers // (p * v)
    held: dict[int, list[int]] = {gpu: [] for gpu in range(1, p + 1)}
    for i in range(1, p * v + 1):  # chunk i goes to GPU (i − 1) mod p + 1
        held[(i - 1) % p + 1] += range((i - 1) * per_chunk + 1, i * per_chunk + 1)
    assert held[1] == [1, 2, 9, 10] and held[2] == [3, 4, 11, 12]
    assert all(len(h) == layers // p for h in held.values())
    # ZB-V's V: GPU 0 holds chunks 0 and 2p − 1, the two ends of the model.
    assert [(c * per_chunk + 1, (c + 1) * per_chunk) for c in (0, 2 * p - 1)] == [(1, 2), (15, 16)]
    q = question(deep, "d02-interleaved-layout")
    assert right(q).startswith("Layers 1–2 and 9–10:")
    texts = [o.text.get("en") for o in q.options]
    assert [t.split(":")[0] for t in texts] == [
        "Layers 1–4", "Layers 1–2 and 5–6", "Layers 1–2 and 9–10", "Layers 1–2 and 15–16"]
    assert "layers 1, 2, 9 and 10" in q.explanation.get("en")


def test_tensor_parallel_backward_all_reduces_the_input_gradient(deep: Quiz):
    """d04 asked n08's all-reduce bytes with fixed numbers; it now asks where the backward
    all-reduces (Megatron's f and g). Two GPUs, a column then a row split, GeLU left out."""
    assert deep.question("d04-tensor-allreduce-bytes") is None
    f = Fraction
    x = [[f(1), f(-2)]]
    a = [[f(1), f(2), f(0), f(-1)], [f(3), f(-1), f(2), f(1)]]  # split by columns
    b = [[f(2), f(0)], [f(1), f(1)], [f(-1), f(3)], [f(0), f(2)]]  # split by rows
    dz = [[f(1), f(-1)]]  # the output gradient: whole on both GPUs after g's all-reduce
    a_i = [[row[:2] for row in a], [row[2:] for row in a]]
    b_i = [b[:2], b[2:]]
    z_i = [_matmul(_matmul(x, a_i[i]), b_i[i]) for i in range(2)]
    z = _matmul(_matmul(x, a), b)
    assert _add(z_i[0], z_i[1]) == z  # g sums
    dx = _matmul(_matmul(dz, _t(b)), _t(a))
    dx_i = [_matmul(_matmul(dz, _t(b_i[i])), _t(a_i[i])) for i in range(2)]
    assert dx_i[0] != dx and dx_i[1] != dx  # each GPU's term is partial ...
    assert _add(dx_i[0], dx_i[1]) == dx  # f sums
    # ... while each weight shard's gradient needs no other GPU: dA_i = Xᵀ·(dZ·B_iᵀ).
    da = _matmul(_t(x), _matmul(dz, _t(b)))
    assert [row[:2] for row in da] == _matmul(_t(x), _matmul(dz, _t(b_i[0])))
    key = right(question(deep, "d04-tensor-backward-allreduce"))
    assert key.startswith("At its input:") and "partial sums" in key


def test_zero_offload_moves_four_bytes_a_parameter(deep: Quiz):
    """d05 asked what n12 computes (16Ψ over the memory left); it now asks what ZeRO-Offload
    keeps on the GPU and sends over PCIe (Ren et al., 2021)."""
    assert deep.question("d05-zero3-gpus-needed") is None
    psi = 13e9
    weights, grads, states = 2 * psi / 1e9, 2 * psi / 1e9, 12 * psi / 1e9
    assert (weights, states, 16 * psi / 1e9) == (26, 156, 208)
    assert weights + grads == 52 > 32  # weights and gradients do not both fit a 32 GB V100
    assert round(weights / 16, 1) == 1.6  # s each way at PCIe 3.0's 16 GB/s
    assert (2 * 12 * psi) / (4 * psi) == 6  # fp32 states out and back: 6 times the traffic
    q = question(deep, "d05-zero-offload")
    key = right(q)
    assert key.startswith("The 26 GB of fp16 weights stay;")
    assert "26 GB of fp16 gradients go to the CPU" in key and "26 GB of new fp16 weights" in key
    for phrase in ("4Ψ = 52 GB", "1.6 s", "156 GB", "26 GB"):
        assert phrase in q.explanation.get("en") and phrase in q.explanation.get("ur"), phrase


def test_sequence_parallel_keeps_linear_inputs_as_shards(deep: Quiz):
    """d16 asked n06's activation memory with fixed numbers; it now asks what Megatron keeps of
    an all-gathered input for the weight gradient, and what that costs."""
    assert deep.question("d16-activation-memory") is None
    s, b, h, t = 2048, 1, 12288, 8
    whole = 4 * s * b * h  # bytes: the inputs of the two first linear layers, bf16
    assert (round(whole / 1e6), round(whole / t / 1e6)) == (101, 13)
    q = question(deep, "d16-sp-backward-gather")
    assert right(q).startswith("Its own 1/8 shard;")
    for lang in ("en", "ur"):
        text = q.explanation.get(lang)
        assert "13 MB" in text and "101 MB" in text and "4·s·b·h" in text


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
    assert "m·3Ψ" not in said("d12-fsdp-vs-tensor") and "12Ψ" not in said("d05-zero-offload")
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
    ("parallelism-deep", "d21-scatter-gather", "ur", ["اسٹیج کی باؤنڈری پر 50 MB"],
     ["50 MB کی حد"]),
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
