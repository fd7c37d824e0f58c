"""pipeline-schedules: complete in both languages, not answerable from the shape of its
options, in the glossary's Urdu, and every computed answer recomputed from the formulas and
the schedule simulator."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

import pytest

from bot.domain.pipeline import ScheduleSpec, simulate
from bot.domain.quiz import Quiz
from bot.present.diagrams import TITLES, drawn
from tests.content.quizzes import question, right


@pytest.fixture(scope="module")
def quiz(quizzes: dict[str, Quiz]) -> Quiz:
    return quizzes["pipeline-schedules"]


def test_pictures_are_captioned_in_the_explanation(quiz: Quiz):
    """The pictures carry no prose, so each explanation names what its picture shows."""
    pictured = [q for q in quiz.questions if q.schedule]
    assert {q.schedule.kind for q in pictured if q.schedule} >= {"zbh1", "zbv", "dualpipe"}
    for q in pictured:
        assert q.schedule is not None
        sched = drawn(q.schedule)
        assert sched.bubble == simulate(q.schedule).bubble  # the picture and the timeline agree
        for lang in ("en", "ur"):
            text = q.explanation.get(lang)
            assert f"{sched.bubble.numerator}/{sched.bubble.denominator}" in text, (q.id, lang)
            assert TITLES[q.schedule.kind].lower() in text.lower(), (q.id, lang)
            assert f"m = {q.schedule.m}" in text, (q.id, lang)


# --- the computed answers, recomputed ----------------------------------------------------------


def test_zb_h1_idle_time(quiz: Quiz):
    zb = simulate(ScheduleSpec("zbh1", 4, 8))  # T_F = T_B = T_W = 1
    one = simulate(ScheduleSpec("1f1b", 4, 8), backward=2)  # the same work, B and W together
    assert (zb.idle(0), one.idle(0), zb.makespan, one.makespan) == (3, 9, 27, 33)
    assert right(question(quiz, "ps01-zbh1-bubble")).startswith("3t:")


def test_zb_h1_or_zb_h2_under_a_memory_cap(quiz: Quiz):
    p, m, mb, budget = 8, 24, 4, 40
    zb1 = simulate(ScheduleSpec("zbh1", p, m))  # T_F = T_B = T_W = 1 (t)
    zb2 = simulate(ScheduleSpec("zbh2", p, m))
    assert (zb1.idle(0), zb1.makespan, zb1.peak_in_flight(0)) == (7, 79, p)
    assert zb2.peak_in_flight(0) == 2 * p - 1
    assert zb1.peak_in_flight(0) * mb <= budget < zb2.peak_in_flight(0) * mb  # 32, 60 GB
    assert zb2.peak_in_flight(0) * mb / 2 == 30 <= budget  # half-size micro-batches fit
    half = Fraction(2 * m * 3) * Fraction(55, 100)  # 48 micro-batches, passes of 0.55t
    assert half == Fraction(792, 10) > zb1.makespan  # 79.2t against 79t
    assert right(question(quiz, "ps02-zbh1-or-zbh2")).startswith("ZB-H1 at 79t")


def test_zb_h1_against_interleaving(quiz: Quiz):
    p, m = 6, 12
    one = simulate(ScheduleSpec("1f1b", p, m), backward=2)
    inter = simulate(ScheduleSpec("interleaved", p, m, 2), backward=2)
    zb = simulate(ScheduleSpec("zbh1", p, m))
    assert (one.bubble, inter.bubble, zb.bubble) == (
        Fraction(5, 17), Fraction(5, 29), Fraction(5, 41))
    assert Fraction(inter.peak_in_flight(0), 2) == p * (1 + Fraction(p - 1, p * 2))  # 1 + 5/12
    assert zb.peak_in_flight(0) == one.peak_in_flight(0) == p
    assert right(question(quiz, "ps16-interleave-or-zbh1")).startswith("ZB-H1: 5/41")


def test_zb_v_memory_and_hops(quiz: Quiz):
    zbv = simulate(ScheduleSpec("zbv", 4, 8))
    assert max(zbv.peak_in_flight(d) for d in range(4)) == 2 * 4  # half-size chunks: 1F1B's p
    assert "2(p−1) GPU-to-GPU hops" in right(question(quiz, "ps03-zbv-cost"))
    p = 4  # of the 2p − 1 chunk boundaries, the V's turn (chunk p−1 to p) stays on GPU p − 1
    gpu_of_chunk = [c if c < p else 2 * p - 1 - c for c in range(2 * p)]
    hops = sum(a != b for a, b in pairwise(gpu_of_chunk))
    assert (hops, 2 * p - 1) == (2 * (p - 1), 7)


def test_dualpipe_bubbles(quiz: Quiz):
    pp = 8
    one = simulate(ScheduleSpec("1f1b", pp, 16), backward=2).idle(0)
    zb = simulate(ScheduleSpec("zbh1", pp, 16)).idle(0)
    dual = simulate(ScheduleSpec("dualpipe", pp, 16)).idle(0)
    q = question(quiz, "ps04-dualpipe-bubble")
    assert right(q).startswith(f"{one}, {zb} and {dual} ")
    # ps01's explanation gives (p−1)(T_F+T_B−T_W): the 1F1B and ZB1P values it yields must not
    # pick the key alone (the review's ps01 -> ps04 leak); DualPipe's value has to be known.
    texts = [o.text.get("en") for o in q.options]
    assert sum(t.startswith(f"{one}, {zb} and ") for t in texts) == 2
    peaks = [simulate(ScheduleSpec("dualpipe", 4, 8)).peak_in_flight(d) for d in range(4)]
    assert peaks == [4 + 1] * 4  # PP + 1 on every device, not only the first


def test_dualpipe_memory_budget(quiz: Quiz):
    pp, state, act = 16, 10, 2  # GB: one stage's parameter state, one micro-batch on a stage
    one = simulate(ScheduleSpec("1f1b", pp, 32))
    first, last = (state + one.peak_in_flight(s) * act for s in (0, pp - 1))
    assert (first, last) == (42, 12)
    dual = 2 * state + (pp + 1) * act  # two stages per device, PP + 1 micro-batches
    assert dual == 54 and first + act == 44  # the distractor forgets the second stage
    assert right(question(quiz, "ps05-dualpipe-memory-budget")).startswith(
        f"About {dual} GB on every device")
    # the takeaway said "the first 1F1B stage's activation peak, PP + 1": that stage holds PP
    assert one.peak_in_flight(0) == pp
    takeaway = question(quiz, "ps05-dualpipe-memory-budget").takeaway
    assert takeaway is not None
    assert "PP + 1 micro-batches' activations on every device, one more than 1F1B's first " \
        "stage" in takeaway.get("en")
    assert "PP + 1 micro-batches کی ایکٹیویشنز رکھتا ہے، 1F1B کے پہلے اسٹیج سے ایک زیادہ" in \
        takeaway.get("ur")
    v = simulate(ScheduleSpec("dualpipev", 4, 8))
    assert (v.idle(0), v.makespan, v.bubble) == (6, 54, Fraction(1, 9))
    assert right(question(quiz, "ps06-dualpipev-layout")).startswith("8 devices; device d holds "
                                                                        "stages d and 15−d")


def test_interleaved_memory_factor(quiz: Quiz):
    for v, worth in ((2, "11.5"), (4, "9.75")):
        chunks = simulate(ScheduleSpec("interleaved", 8, 16, v)).peak_in_flight(0)
        assert Fraction(chunks, v) == 8 * (1 + Fraction(7, 8 * v)) == Fraction(worth)
    assert right(question(quiz, "ps07-interleaved-memory")).startswith("11.5:")


def test_a_replicated_stage_doubles_the_pace(quiz: Quiz):
    """ps08 asked what parallelism-deep's d08 asks (interleaving's cost: more sends, and the
    memory factor ps07 and ps20 ask too); it now asks what PipeDream's replicated stage does."""
    assert quiz.question("ps08-interleaving-more-chunks") is None
    times, m = (1, 1, 2, 1), 64  # forward plus backward per micro-batch, in t

    def finishes(replicas: tuple[int, ...]) -> list[int]:
        """When each micro-batch leaves the last stage; replica j % r takes micro-batch j."""
        done = [0] * m
        for time, r in zip(times, replicas, strict=True):
            free = [0] * r
            for j in range(m):
                done[j] = max(done[j], free[j % r]) + time
                free[j % r] = done[j]
        return done

    def pace(done: list[int]) -> Fraction:
        return Fraction(done[-1] - done[m // 2], m - 1 - m // 2)

    assert pace(finishes((1, 1, 1, 1))) == 2 and pace(finishes((1, 1, 2, 1))) == 1
    # At one micro-batch every t each of the 5 GPUs is busy: 5t of work per 5 GPUs.
    assert Fraction(sum(times), 5) == pace(finishes((1, 1, 2, 1)))
    q = question(quiz, "ps08-replicated-stage")
    assert right(q) == ("Throughput doubles; the two copies of stage 3 all-reduce their weight "
                        "gradients, as data parallelism does")
    # A 2 x 2 design: each half of the key is in exactly one wrong option.
    halves = [o.text.get("en").split("; ") for o in q.options]
    assert sum(h[0] == "Throughput doubles" for h in halves) == 2
    assert sum("all-reduce their weight gradients" in h[1] for h in halves) == 2


def test_the_slowest_stage_sets_the_step(quiz: Quiz):
    # Stretch 2, 2, 2, 3 on F + B = 3 slots: one slot is 1/3 ms.
    sched = simulate(ScheduleSpec("1f1b", 4, 32), backward=2, stretch=(2, 2, 2, 3))
    assert Fraction(sched.makespan, 3) == 102
    assert right(question(quiz, "ps09-unbalanced-stages")).startswith("102 ms")


def test_gpipe_re_materialization_memory(quiz: Quiz):
    """ps10 asked what parallelism-deep's d03 asks (GPipe keeps m, 1F1B p micro-batches);
    it now asks what GPipe's own re-materialization keeps (Huang et al., section 2.3)."""
    assert quiz.question("ps10-gpipe-or-1f1b-memory") is None
    layer, stage_input = 34 * 4096 * 8192, 2 * 4096 * 8192  # bytes, s·b = 4,096, h = 8,192
    stage = 10 * layer
    assert (round(layer / 1e9, 2), round(stage / 1e9, 1), round(stage_input / 1e6)) == (
        1.14, 11.4, 67)
    m = 64
    peak = m * stage_input + stage  # every stage input, plus one stage being rerun
    assert round(peak / 1e9, 1) == 15.7
    assert round(m * stage / 1e9) == 730  # no re-materialization: the 730 GB option
    assert round(8 * stage / 1e9) == 91  # 1F1B's first GPU without recomputation
    assert round(m * stage_input / 1e9, 1) == 4.3  # the inputs alone
    assert round(1024 * stage_input / 1e9) == 69  # the inputs still grow with m
    q = question(quiz, "ps10-gpipe-remat-memory")
    assert right(q).startswith("About 15.7 GB")
    assert "§2.3" in q.explanation.get("en") and "§2.3" in q.explanation.get("ur")


def test_warm_up_counts(quiz: Quiz):
    rank1 = [op for op in simulate(ScheduleSpec("1f1b", 4, 8)).ops if op.stage == 1]
    kinds = "".join(op.kind for op in rank1)
    assert kinds == "FF" + "FB" * 6 + "BB"
    q = question(quiz, "ps11-warmup-counts")
    assert right(q).startswith("2 and 2:")
    # Each half of the key's rule is in exactly one wrong option too (the review: 'p − rank − 1'
    # in two options and nowhere else pointed at the key).
    texts = [o.text.get("en") for o in q.options]
    assert sum("p − rank − 1" in t for t in texts) == sum("p − rank forwards" in t for t in texts)
    assert sum("same count" in t or "as many" in t for t in texts) == 2


def test_no_wrong_option_contradicts_its_own_stem_or_itself(quiz: Quiz):
    """The review read ps15's 'on one micro-batch' against the stem's 'different
    micro-batches', and ps13's 'two weight versions ... not weights' against itself."""
    ps15 = [o.text.get("en") for o in question(quiz, "ps15-dualpipe-overlap").options]
    assert not any("one micro-batch" in t for t in ps15)
    ps13 = [o.text.get("en") for o in question(quiz, "ps13-flush-or-2bw").options]
    assert not any("weight versions" in t and "not weights" in t for t in ps13)


def test_recomputation_keeps_the_share(quiz: Quiz):
    plain = simulate(ScheduleSpec("1f1b", 8, 32), backward=2)
    recompute = simulate(ScheduleSpec("1f1b", 8, 32), backward=3)
    assert plain.bubble == recompute.bubble == Fraction(7, 39)
    assert (plain.idle(0), recompute.idle(0)) == (21, 28)
    assert (plain.makespan, recompute.makespan) == (117, 156)
    key = right(question(quiz, "ps12-recomputation-bubble"))
    assert "7/39" in key and "21·t_f to 28·t_f" in key


def test_bpipe_cap_costs_a_micro_batch_each_way_per_slot(quiz: Quiz):
    """ps17 restated 1F1B's p − s count; it now asks what BPipe's cap costs on the link."""
    assert quiz.question("ps17-bpipe-balance") is None
    held = [simulate(ScheduleSpec("1f1b", 8, 32)).peak_in_flight(s) for s in range(8)]
    assert held == [8 - s for s in range(8)]  # p − s on stage s
    assert {held[s] + held[7 - s] for s in range(4)} == {9}  # a cap of 5 fits every pair
    # Keeping the 5 whose backwards come soonest: each slot's new forward is needed last and
    # leaves, and after the backward the sixth-soonest returns; one micro-batch each way.
    in_flight, cap, moved_out, moved_in = list(range(8)), 5, 0, 0
    for new in range(8, 40):  # steady state: one forward and one backward per slot
        local = set(in_flight[:cap])  # the oldest are the next backwards
        in_flight.append(new)  # the forward: made on stage 0, needed last
        moved_out += new not in in_flight[:cap]
        in_flight.pop(0)  # the backward frees the oldest
        moved_in += len(set(in_flight[:cap]) - local - {new})  # fetched back from stage 7
    assert moved_out == moved_in == 32  # one micro-batch out and one in, every slot
    each_way_ms = 6 / 50 * 1e3
    assert round(each_way_ms) == 120 and each_way_ms / 150 == pytest.approx(0.8)
    assert round(6 / 450 * 1e3) == 13  # what NVLink would take, were the pair in one node
    key = right(question(quiz, "ps17-bpipe-transfer"))
    assert key.startswith("6 GB each way per slot") and "120 ms" in key


def test_bpipe_traffic_is_set_by_which_micro_batches_leave(quiz: Quiz):
    """The cap alone does not fix the bytes: keeping the soonest five sends every micro-batch
    out and back, while parking every other one for its whole wait keeps stage 0 at 5 (the
    forward being made counted) with half the traffic. BPipe's paper (not readable here) is
    not quoted for the order, so the stem states it as an assumption ('say it keeps')."""
    p, cap = 8, 5
    home = {0, 2, 4, 6}  # micro-batch i stays on stage 0 when i mod 8 is here
    for s in range(16, 64):  # slot s: forward s, then the backward of s − 7
        b = s - (p - 1)
        after_forward = {i for i in range(b, s + 1) if i % p in home} | {b, s}
        after_backward = {i for i in range(b + 1, s + 1) if i % p in home} | {b + 1}
        assert len(after_forward) <= cap and len(after_backward) <= cap
    travel = 1 - len(home) / p  # micro-batches out (and back) per slot
    assert round(travel * 6 / 50 * 1e3) == 60
    q = question(quiz, "ps17-bpipe-transfer")
    assert "say it keeps the 5 whose backwards come soonest" in q.text.get("en")
    assert "فرض کریں" in q.text.get("ur")
    assert "half the traffic, 60 ms each way" in q.explanation.get("en")
    assert "آدھی ٹریفک" in q.explanation.get("ur") and "60 ms" in q.explanation.get("ur")


def test_offload_fits_the_slot(quiz: Quiz):
    per_micro_batch = 34 * 4096 * 8192 * 10  # 34·s·b·h bytes per layer, 10 layers
    assert round(per_micro_batch / 1e9, 1) == 11.4
    each_way_ms = per_micro_batch / 50e9 * 1e3
    assert round(each_way_ms) == 228 < 400 < 2 * each_way_ms  # duplex fits, half duplex not
    q = question(quiz, "ps18-offload-pcie")
    assert "228 ms" in right(q)
    # The stem says 'each way': no wrong option may claim the link runs one way at a time.
    assert not any("one direction at a time" in o.text.get("en") for o in q.options)
    held = simulate(ScheduleSpec("1f1b", 8, 32))
    first = [op for op in held.ops if op.stage == 0]
    f5 = next(op.start for op in first if op.kind == "F" and op.micro == 5)
    b5 = next(op.start for op in first if op.kind == "B" and op.micro == 5)
    assert b5 - f5 > 3  # a stashed micro-batch waits several slots, not one


def test_p2p_bytes_per_boundary(quiz: Quiz):
    whole = 8192 * 1 * 8192 * 2  # s·b·h values in bf16
    assert (round(whole / 1e6), round(whole / 8 / 1e6, 1)) == (134, 16.8)
    assert (round(whole / 50e9 * 1e3, 1), round(whole / 8 / 50e9 * 1e3, 2)) == (2.7, 0.34)
    key = right(question(quiz, "ps19-p2p-volume"))
    assert key.startswith("16.8 MB") and "every slot" in key


def test_smallest_interleaving_under_the_cap(quiz: Quiz):
    def peak_gb(v: int) -> Fraction:  # chunks of 1/v stage, 4 GB per micro-batch's worth
        return Fraction(simulate(ScheduleSpec("interleaved", 8, 32, v)).peak_in_flight(0), v) * 4

    assert [peak_gb(v) for v in (2, 3, 4, 6)] == [46, Fraction(124, 3), 39, Fraction(110, 3)]
    fits = [v for v in (2, 3, 4, 6) if 12 % v == 0 and peak_gb(v) <= 38]
    assert fits[0] == 6
    assert right(question(quiz, "ps20-interleave-cap")).startswith("v = 6:")


def test_output_layer_share(quiz: Quiz):
    h, v = 8192, 128_256
    layer = 2 * h * h + 2 * h * 1024 + 3 * h * 28_672
    head = Fraction(h * v, layer)
    assert round(float(head), 2) == 1.23
    balanced = (80 + head) / 8
    assert round(float(balanced), 2) == 10.15 and round(float((10 + head) / balanced), 2) == 1.11
    assert "10.15" in right(question(quiz, "ps21-vocab-imbalance"))


def test_interleaving_pays_at_small_m_only(quiz: Quiz):
    """ps22 asked d17's question (which micro-batch size gives the shortest 1F1B step); it now
    asks when interleaving pays: a fixed saving per step against sends per micro-batch."""
    assert quiz.question("ps22-microbatch-size") is None
    p, v, t, stall = 8, 2, 20, Fraction(1, 2)
    one = {m: (m + p - 1) * t for m in (32, 256)}
    inter = {m: m * t + Fraction((p - 1) * t, v) + m * stall for m in (32, 256)}
    assert one == {32: 780, 256: 5260} and inter == {32: 726, 256: 5318}
    assert (one[32] - inter[32], inter[256] - one[256]) == (54, 58)
    assert Fraction((p - 1) * t, v) / stall == 140  # the break-even m
    assert simulate(ScheduleSpec("1f1b", p, 32)).bubble == Fraction(7, 39)
    assert simulate(ScheduleSpec("interleaved", p, 32, v)).bubble == Fraction(7, 71)
    assert Fraction(7, 263) < Fraction(3, 100)
    key = right(question(quiz, "ps22-interleave-batch-payoff"))
    assert "by 54 ms" in key and "loses 58 ms" in key


def test_pipedream_is_cited_where_its_sosp_paper_is(quiz: Quiz):
    """ps09 cited 'PipeDream: Generalized Pipeline Parallelism for DNN Training (SOSP 2019)'
    at arXiv 1806.03377, which is Harlap et al.'s earlier 'PipeDream: Fast and Efficient
    Pipeline Parallel DNN Training' (2018), another paper with another title."""
    [ref] = [r for r in question(quiz, "ps09-unbalanced-stages").references
             if r.title.startswith("PipeDream:")]
    assert "SOSP 2019" in ref.title and "1806.03377" not in ref.url
    assert "pipedream-generalized-pipeline-parallelism" in ref.url
