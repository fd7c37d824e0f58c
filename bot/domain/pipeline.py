"""Pipeline schedules simulated from their rules, and a text timeline of them.

Each stage (one GPU) runs a fixed order of operations, forward (F) or backward (B) of one
micro-batch on one model chunk; an operation starts when its GPU is free and its input is
ready (the previous stage's forward, or the next stage's backward). The orders are those of
the papers: naive model parallelism (one micro-batch through all stages and back before the
next), GPipe (all forwards, then all backwards; Huang et al. 2019), 1F1B (PipeDream-Flush:
p−d−1 warm-up forwards on GPU d, then one forward one backward; Narayanan et al. 2021) and
interleaved 1F1B (v chunks per GPU, Megatron-LM's order; ibid.).

Time is in slots: one slot is one chunk's forward (a whole stage's when v = 1). Backward
takes `backward` slots (1 by default, as the papers draw it; about 2 in practice, which
changes no bubble fraction here). The bubble is idle time over total time on all GPUs:
(p−1)/(m+p−1) for GPipe and 1F1B, (p−1)/(v·m+p−1) interleaved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property

KINDS = ("naive", "gpipe", "1f1b", "interleaved")
_NAME = re.compile(r"(naive|gpipe|1f1b|interleaved)-p(\d+)-m(\d+)(?:-v(\d+))?")
MAX_STAGES, MAX_MICRO, MAX_CHUNKS = 16, 64, 8


@dataclass(frozen=True, slots=True)
class ScheduleSpec:
    """A schedule kind with p stages (GPUs), m micro-batches and v chunks per GPU."""

    kind: str
    p: int
    m: int
    v: int = 1

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown schedule {self.kind!r} (one of {', '.join(KINDS)})")
        if not (1 <= self.p <= MAX_STAGES and 1 <= self.m <= MAX_MICRO
                and 1 <= self.v <= MAX_CHUNKS):
            raise ValueError(f"p, m, v out of range: {self.p}, {self.m}, {self.v}")
        if (self.kind == "interleaved") != (self.v > 1):
            raise ValueError("v > 1 exactly for the interleaved schedule")
        if self.kind == "interleaved" and self.m % self.p:
            raise ValueError("interleaved 1F1B needs m to be a multiple of p")

    @property
    def name(self) -> str:
        """The file stem, e.g. gpipe-p4-m4 or interleaved-p4-m8-v2."""
        tail = f"-v{self.v}" if self.v > 1 else ""
        return f"{self.kind}-p{self.p}-m{self.m}{tail}"

    @classmethod
    def parse(cls, stem: str) -> ScheduleSpec | None:
        """The spec a file stem names, or None if it names none."""
        match = _NAME.fullmatch(stem)
        if match is None:
            return None
        kind, p, m, v = match.groups()
        try:
            return cls(kind, int(p), int(m), int(v or 1))
        except ValueError:
            return None


@dataclass(frozen=True, slots=True)
class Op:
    """One forward or backward of micro-batch `micro` (0-based) on a GPU's `chunk`."""

    stage: int
    kind: str  # "F" or "B"
    micro: int
    chunk: int
    start: int
    end: int

    @property
    def label(self) -> str:
        """F1, B3: the kind and the 1-based micro-batch."""
        return f"{self.kind}{self.micro + 1}"


@dataclass(frozen=True)
class Schedule:
    """Every operation of one training step, with its start and end slot."""

    spec: ScheduleSpec
    ops: tuple[Op, ...]

    @cached_property
    def makespan(self) -> int:
        return max(op.end for op in self.ops)

    @property
    def busy(self) -> int:
        """Slots spent computing, summed over GPUs."""
        return sum(op.end - op.start for op in self.ops)

    @property
    def bubble(self) -> Fraction:
        """Idle share of the step: idle GPU-slots over all GPU-slots."""
        total = self.spec.p * self.makespan
        return Fraction(total - self.busy, total)

    def row(self, stage: int) -> list[Op | None]:
        """What GPU `stage` does in each slot (None: idle, the bubble)."""
        cells: list[Op | None] = [None] * self.makespan
        for op in self.ops:
            if op.stage == stage:
                for t in range(op.start, op.end):
                    cells[t] = op
        return cells

    def peak_in_flight(self, stage: int) -> int:
        """Most micro-batches whose activations GPU `stage` holds at once (forward done,
        backward not finished), counted per chunk."""
        live = peak = 0
        for op in sorted((op for op in self.ops if op.stage == stage), key=lambda o: o.end):
            live += 1 if op.kind == "F" else -1
            peak = max(peak, live)
        return peak


def _orders(spec: ScheduleSpec) -> list[list[tuple[str, int, int]]]:
    """Per GPU, its (kind, micro-batch, chunk) operations in the order it runs them."""
    p, m, v = spec.p, spec.m, spec.v
    orders: list[list[tuple[str, int, int]]] = []
    for d in range(p):
        if spec.kind == "naive":
            order = [(k, i, 0) for i in range(m) for k in ("F", "B")]
        elif spec.kind == "gpipe":
            order = [("F", i, 0) for i in range(m)] + [("B", i, 0) for i in reversed(range(m))]
        elif spec.kind == "1f1b":
            warm = min(p - d - 1, m)
            order = [("F", i, 0) for i in range(warm)]
            for i in range(m - warm):
                order += [("F", warm + i, 0), ("B", i, 0)]
            order += [("B", i, 0) for i in range(m - warm, m)]
        else:
            order = _interleaved_order(p, m, v, d)
        orders.append(order)
    return orders


def _interleaved_order(p: int, m: int, v: int, d: int) -> list[tuple[str, int, int]]:
    """Megatron-LM's interleaved 1F1B order on GPU d (schedules.py, Narayanan et al. 2021)."""
    total = m * v

    def op(kind: str, k: int) -> tuple[str, int, int]:
        in_group = k % (p * v)
        chunk = in_group // p
        if kind == "B":
            chunk = v - 1 - chunk
        return kind, (k // (p * v)) * p + k % p, chunk

    warm = total if m == p else min((p - d - 1) * 2 + (v - 1) * p, total)
    order = [op("F", k) for k in range(warm)]
    for k in range(total - warm):
        order += [op("F", warm + k), op("B", k)]
    order += [op("B", k) for k in range(total - warm, total)]
    return order


def simulate(spec: ScheduleSpec, *, backward: int = 1) -> Schedule:
    """Run the schedule's rules: every operation as early as its GPU and its input allow."""
    p, last = spec.p, spec.p * spec.v - 1
    orders = _orders(spec)
    done: dict[tuple[str, int, int], int] = {}  # (kind, micro, virtual stage) -> end slot
    free = [0] * p
    nxt = [0] * p
    ops: list[Op] = []
    while any(nxt[d] < len(orders[d]) for d in range(p)):
        progressed = False
        for d in range(p):
            while nxt[d] < len(orders[d]):
                kind, micro, chunk = orders[d][nxt[d]]
                vs = chunk * p + d  # virtual stage: chunk c of GPU d holds layers block c·p+d
                if kind == "F":
                    dep = ("F", micro, vs - 1) if vs > 0 else None
                else:
                    dep = ("B", micro, vs + 1) if vs < last else ("F", micro, vs)
                if dep is not None and dep not in done:
                    break
                start = max(free[d], done[dep] if dep else 0)
                end = start + (1 if kind == "F" else backward)
                done[(kind, micro, vs)] = free[d] = end
                ops.append(Op(d, kind, micro, chunk, start, end))
                nxt[d] += 1
                progressed = True
        if not progressed:
            raise ValueError(f"{spec.name}: the schedule deadlocks")
    return Schedule(spec, tuple(sorted(ops, key=lambda o: (o.stage, o.start))))


@cache  # pure, and asked for on every answer to a pictured question
def timeline(spec: ScheduleSpec, *, idle: str = ".") -> str:
    """The schedule as text, one row per GPU and one column per slot, bubble dotted:

    GPU1 F1 F2 F3 F4 .. .. .. .. .. .. B4 B3 B2 B1
    """
    sched = simulate(spec)
    chunk_mark = "abcdefgh" if spec.v > 1 else ""

    def label(op: Op | None) -> str:
        if op is None:
            return ""
        return op.label + (chunk_mark[op.chunk] if chunk_mark else "")

    rows = [[label(op) for op in sched.row(d)] for d in range(spec.p)]
    width = max(len(cell) for row in rows for cell in row)
    head = len(f"GPU{spec.p}")
    return "\n".join(
        f"GPU{d + 1}".ljust(head) + " " + " ".join(
            cell.ljust(width) if cell else idle * width for cell in row)
        for d, row in enumerate(rows))
