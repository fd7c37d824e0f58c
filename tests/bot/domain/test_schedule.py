"""Pipeline schedules simulated from their rules: bubbles, memory in flight, text timelines."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

import pytest

from bot.domain.pipeline import ScheduleSpec, simulate, timeline


@pytest.mark.parametrize("kind", ["gpipe", "1f1b"])
@pytest.mark.parametrize("p", [1, 2, 4, 8])
@pytest.mark.parametrize("m", [1, 3, 4, 8, 16])
@pytest.mark.parametrize("backward", [1, 2])
def test_gpipe_and_1f1b_bubble_is_p_minus_1_over_m_plus_p_minus_1(kind, p, m, backward):
    sched = simulate(ScheduleSpec(kind, p, m), backward=backward)
    assert sched.bubble == Fraction(p - 1, m + p - 1)


@pytest.mark.parametrize("p, m, v", [(2, 4, 2), (4, 8, 2), (4, 8, 4), (4, 16, 2), (8, 16, 3),
                                     (4, 4, 2)])
@pytest.mark.parametrize("backward", [1, 2])
def test_interleaving_divides_the_bubble_time_by_v(p, m, v, backward):
    inter = simulate(ScheduleSpec("interleaved", p, m, v), backward=backward)
    plain = simulate(ScheduleSpec("1f1b", p, m), backward=backward)
    assert inter.bubble == Fraction(p - 1, v * m + p - 1)
    # Narayanan et al.'s measure, bubble time over ideal time: (p−1)/(v·m) against (p−1)/m.
    idle = lambda s: s.spec.p * s.makespan - s.busy  # noqa: E731
    assert Fraction(idle(inter), inter.busy) == Fraction(p - 1, v * m)
    assert Fraction(idle(plain), plain.busy) == Fraction(p - 1, m)
    # Same work, measured in whole-stage slots: the interleaved step is shorter.
    assert Fraction(inter.makespan, v) < plain.makespan


def test_naive_keeps_all_but_one_gpu_idle():
    assert simulate(ScheduleSpec("naive", 4, 1)).bubble == Fraction(3, 4)
    assert simulate(ScheduleSpec("naive", 4, 8)).bubble == Fraction(3, 4)


def test_gpipe_holds_m_micro_batches_1f1b_at_most_p():
    gpipe, one = simulate(ScheduleSpec("gpipe", 4, 8)), simulate(ScheduleSpec("1f1b", 4, 8))
    assert [gpipe.peak_in_flight(d) for d in range(4)] == [8, 8, 8, 8]
    assert [one.peak_in_flight(d) for d in range(4)] == [4, 3, 2, 1]


def test_operations_respect_dependencies_and_never_overlap():
    sched = simulate(ScheduleSpec("interleaved", 4, 8, 2), backward=2)
    end = {(o.kind, o.micro, o.chunk * 4 + o.stage): o.end for o in sched.ops}
    for o in sched.ops:
        vs = o.chunk * 4 + o.stage
        if o.kind == "F" and vs:
            assert o.start >= end[("F", o.micro, vs - 1)]
        if o.kind == "B":
            assert o.start >= end[("B", o.micro, vs + 1) if vs < 7 else ("F", o.micro, vs)]
    for d in range(4):
        mine = sorted((o.start, o.end) for o in sched.ops if o.stage == d)
        assert all(a[1] <= b[0] for a, b in pairwise(mine))
    assert len(sched.ops) == 4 * 8 * 2 * 2


def test_text_timeline_of_gpipe():
    assert timeline(ScheduleSpec("gpipe", 4, 4)) == "\n".join([
        "GPU1 F1 F2 F3 F4 .. .. .. .. .. .. B4 B3 B2 B1",
        "GPU2 .. F1 F2 F3 F4 .. .. .. .. B4 B3 B2 B1 ..",
        "GPU3 .. .. F1 F2 F3 F4 .. .. B4 B3 B2 B1 .. ..",
        "GPU4 .. .. .. F1 F2 F3 F4 B4 B3 B2 B1 .. .. ..",
    ])


def test_text_timeline_of_1f1b_and_interleaved():
    rows = timeline(ScheduleSpec("1f1b", 4, 8)).splitlines()
    assert rows[0] == "GPU1 F1 F2 F3 F4 .. .. .. B1 F5 B2 F6 B3 F7 B4 F8 B5 .. B6 .. B7 .. B8"
    assert rows[3].startswith("GPU4 .. .. .. F1 B1 F2 B2")
    inter = timeline(ScheduleSpec("interleaved", 4, 8, 2)).splitlines()
    assert inter[0].startswith("GPU1 F1a F2a F3a F4a F1b F2b F3b F4b F5a")
    assert inter[3].startswith("GPU4 ... ... ... F1a")


@pytest.mark.parametrize("name", ["naive-p4-m1", "gpipe-p4-m4", "1f1b-p4-m8",
                                  "interleaved-p4-m8-v2", "zbh1-p4-m8", "zbh2-p4-m8", "zbv-p4-m8",
                                  "dualpipe-p4-m8", "dualpipev-p4-m8"])
def test_names_round_trip(name):
    spec = ScheduleSpec.parse(name)
    assert spec is not None and spec.name == name


@pytest.mark.parametrize("name", ["gpipe-p4", "zb-p4-m4", "interleaved-p4-m6-v2",
                                  "gpipe-p4-m4-v2", "gpipe-p0-m4", "interleaved-p4-m8",
                                  "zbv-p4-m8-v2", "dualpipe-p3-m6", "dualpipe-p4-m6",
                                  "dualpipe-p4-m9", "dualpipev-p4-m7"])
def test_bad_names_name_no_schedule(name):
    assert ScheduleSpec.parse(name) is None


# Zero Bubble (Qi et al. 2023): B is the input gradient, W the weight gradient. Their Table 2
# puts 1F1B's bubble at (p−1)(T_F+T_B+T_W) per stage and ZB-H1's at (p−1)(T_F+T_B−T_W).
@pytest.mark.parametrize("p, m", [(2, 4), (2, 5), (4, 4), (4, 8), (4, 13), (8, 8), (8, 16)])
@pytest.mark.parametrize("b", [1, 2, 3])
def test_zb_h1_bubble_is_p_minus_1_times_f_plus_b_minus_w(p, m, b):
    zb = simulate(ScheduleSpec("zbh1", p, m), backward=b, weight=1)
    one = simulate(ScheduleSpec("1f1b", p, m), backward=b + 1)
    assert {zb.idle(d) for d in range(p)} == {(p - 1) * (1 + b - 1)}
    assert {one.idle(d) for d in range(p)} == {(p - 1) * (1 + b + 1)}
    if b == 1:  # T_F = T_B = T_W: a third of 1F1B's, and (p−1)/(3m) of the ideal time
        assert 3 * zb.idle(0) == one.idle(0)
        assert Fraction(zb.idle(0), 3 * m) == Fraction(p - 1, 3 * m)


def _until_w(sched, stage):
    """Micro-batches between their F and their W on a GPU, at the worst moment."""
    live = peak = 0
    for op in sorted((o for o in sched.ops if o.stage == stage), key=lambda o: o.start):
        live += op.kind == "F"
        peak = max(peak, live)
        live -= op.kind == "W"
    return peak


def test_zb_h1_holds_what_1f1b_holds():
    zb, one = simulate(ScheduleSpec("zbh1", 4, 8)), simulate(ScheduleSpec("1f1b", 4, 8))
    assert [zb.peak_in_flight(d) for d in range(4)] == [one.peak_in_flight(d)
                                                         for d in range(4)] == [4, 3, 2, 1]
    # Ws put off by d keep every GPU at p micro-batches between F and W (paper, sect. 3.1).
    assert [_until_w(zb, d) for d in range(4)] == [4, 4, 4, 4]


@pytest.mark.parametrize("p", [2, 4, 6, 8])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_zb_h2_is_a_parallelogram_at_2p_minus_1_micro_batches(p, k):
    m = k * p
    sched = simulate(ScheduleSpec("zbh2", p, m))
    # Paper, sect. 3.2: extra warm-up forwards and Ws at the tail, peak (2p−1)·M_B.
    assert [sched.gaps(d) for d in range(p)] == [0] * p
    assert sched.makespan == 3 * m + p - 1
    assert [sched.peak_in_flight(d) for d in range(p)] == [2 * (p - d) - 1 for d in range(p)]
    # One step alone lasts as long as ZB-H1's; its idle slots all sit at the row ends, where
    # the next step's forwards can go (ZB-H1's sit inside the rows, in the warm-up).
    zb1 = simulate(ScheduleSpec("zbh1", p, m))
    assert zb1.makespan == sched.makespan and (p == 2 or zb1.gaps(0) == p - 1)


@pytest.mark.parametrize("p", [2, 4, 6, 8])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_zb_v_is_a_parallelogram_with_1f1b_memory(p, k):
    m = k * p
    sched = simulate(ScheduleSpec("zbv", p, m))
    # 2 chunks x m micro-batches x (F, B, W) slots, GPU d starting d slots late, no gap inside.
    assert sched.makespan == 6 * m + p - 1
    assert [sched.gaps(d) for d in range(p)] == [0] * p
    assert [sched.idle(d) for d in range(p)] == [p - 1] * p
    # 2p half-size chunk activations: 1F1B's p whole-stage ones on its first GPU.
    assert max(sched.peak_in_flight(d) for d in range(p)) == 2 * p
    assert max(_until_w(sched, d) for d in range(p)) < 3 * p


# DualPipe's README: bubble (PP/2−1)(F&B+B−3W), B a full backward, F&B an overlapped pair,
# activations PP+1 micro-batches per device; DualPipeV the same on PP/2 devices.
@pytest.mark.parametrize("p", [2, 4, 6, 8])
@pytest.mark.parametrize("extra", [0, 2, 8])
def test_dualpipe_bubble_and_memory_match_the_readme(p, extra):
    m = 2 * p + extra
    f, b, w = 1, 2, 1  # a forward, a full backward (B 1 + W 1), a weight pass
    fb = f + b  # overlapping hides communication; the compute still adds up
    for kind, pp, devices in (("dualpipe", p, p), ("dualpipev", 2 * p, p)):
        sched = simulate(ScheduleSpec(kind, devices, m))
        assert {sched.idle(d) for d in range(devices)} == {(pp // 2 - 1) * (fb + b - 3 * w)}
        assert max(sched.peak_in_flight(d) for d in range(devices)) == pp + 1
        assert sorted(o.kind for o in sched.ops).count("FB") > 0


def test_dualpipe_beats_1f1b_and_zb_h1_at_the_same_stages():
    one = simulate(ScheduleSpec("1f1b", 8, 16), backward=2)
    zb = simulate(ScheduleSpec("zbh1", 8, 16))
    dual = simulate(ScheduleSpec("dualpipe", 8, 16))
    assert [one.idle(0), zb.idle(0), dual.idle(0)] == [21, 7, 6]


@pytest.mark.parametrize("name", ["zbh1-p4-m8", "zbh2-p4-m8", "zbv-p4-m8", "dualpipe-p4-m8",
                                  "dualpipe-p8-m20", "dualpipev-p4-m10"])
@pytest.mark.parametrize("backward", [1, 2])
def test_split_schedules_respect_dependencies(name, backward):
    spec = ScheduleSpec.parse(name)
    assert spec is not None
    sched = simulate(spec, backward=backward)
    p = spec.p
    place = (lambda d, c: (c, d if c == 0 else p - 1 - d)) if spec.kind == "dualpipe" else (
        (lambda d, c: (0, d if c == 0 else 2 * p - 1 - d)) if spec.chunks == 2
        else (lambda d, c: (0, d)))
    last = p - 1 if spec.kind in ("dualpipe", "zbh1", "zbh2") else 2 * p - 1
    end, parts = {}, []
    for o in sched.ops:
        pieces = [("F", o.micro, o.chunk), ("B", o.micro2, o.chunk2)] if o.kind == "FB" else [
            (o.kind, o.micro, o.chunk)]
        for kind, micro, chunk in pieces:
            end[(kind, micro, *place(o.stage, chunk))] = o.end
            parts.append((o, kind, micro, place(o.stage, chunk)))
    for o, kind, micro, (path, vs) in parts:
        if kind == "F" and vs:
            assert o.start >= end[("F", micro, path, vs - 1)]
        if kind == "B":
            need = ("B", micro, path, vs + 1) if vs < last else ("F", micro, path, vs)
            assert o.start >= end[need]
        if kind == "W":
            assert o.start >= end[("B", micro, path, vs)]
    for d in range(p):
        mine = sorted((o.start, o.end) for o in sched.ops if o.stage == d)
        assert all(a[1] <= b[0] for a, b in pairwise(mine))
    # One F and one B of every micro-batch on every stage it crosses; a W for each B that
    # left it (DualPipe's full backwards, outside its zero-bubble steps, include theirs).
    crossings = spec.m * p * (1 if spec.kind in ("zbh1", "zbh2", "dualpipe") else 2)
    count = {k: sum(1 for x in parts if x[1] == k) for k in "FBW"}
    assert count["F"] == count["B"] == crossings
    assert count["W"] == crossings if spec.kind.startswith("zb") else 0 < count["W"] < crossings


def test_text_timeline_of_zb_h1():
    rows = timeline(ScheduleSpec("zbh1", 4, 8)).splitlines()
    assert rows[0] == ("GPU1 F1 F2 F3 F4 .. .. .. B1 W1 F5 B2 W2 F6 B3 W3 F7 B4 W4 F8 B5 W5 B6 "
                       "W6 B7 W7 B8 W8")
    assert rows[3].startswith("GPU4 .. .. .. F1 B1 F2 B2 F3 B3 F4 B4 W1 F5")


def test_dualpipe_timeline_marks_direction_and_overlap():
    rows = timeline(ScheduleSpec("dualpipe", 4, 8)).splitlines()
    assert rows[0].split()[1:5] == ["F1a", "F2a", "F3a", "F1b"]
    assert rows[3].split()[1:5] == ["F1b", "F2b", "F3b", "F1a"]
    # The pair F4 (direction a) with B2 (direction b) lasts F + B + W: three columns.
    assert "F4a  +B2b ~    " in rows[0]
    assert "B3b  ~    " in rows[0]  # a full backward (B with its W) over two columns


@pytest.mark.parametrize("kind", ["gpipe", "1f1b"])
@pytest.mark.parametrize("m", [4, 8, 32])
@pytest.mark.parametrize("stretch", [(1, 1, 1, 2), (1, 1, 1, 3), (2, 2, 2, 3)])
def test_the_slowest_stage_sets_the_pace(kind, m, stretch):
    # A stage's F + B is 3·stretch slots; with the slowest stage last the step lasts the
    # fill through every stage plus m − 1 micro-batches at the slowest stage's pace.
    sched = simulate(ScheduleSpec(kind, 4, m), backward=2, stretch=stretch)
    assert sched.makespan == 3 * sum(stretch) + (m - 1) * 3 * max(stretch)
    balanced = simulate(ScheduleSpec(kind, 4, m), backward=2, stretch=(max(stretch),) * 4)
    assert sched.makespan <= balanced.makespan


def test_stretch_needs_one_factor_per_gpu():
    with pytest.raises(ValueError, match="stretch needs 4 factors"):
        simulate(ScheduleSpec("1f1b", 4, 8), stretch=(1, 2))
