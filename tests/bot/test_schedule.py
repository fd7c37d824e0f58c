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
                                  "interleaved-p4-m8-v2"])
def test_names_round_trip(name):
    spec = ScheduleSpec.parse(name)
    assert spec is not None and spec.name == name


@pytest.mark.parametrize("name", ["gpipe-p4", "zb-p4-m4", "interleaved-p4-m6-v2",
                                  "gpipe-p4-m4-v2", "gpipe-p0-m4", "interleaved-p4-m8"])
def test_bad_names_name_no_schedule(name):
    assert ScheduleSpec.parse(name) is None
