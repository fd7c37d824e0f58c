"""Pipeline schedules simulated from their rules, and a text timeline of them.

Each GPU runs a fixed order of operations (`bot.domain.pipeline_orders`): forward (F) or
backward (B) of one micro-batch on one model chunk, and in the Zero Bubble schedules a
separate weight-gradient pass (W); an operation starts when its GPU is free and its input
is ready (the previous stage's forward, the next stage's backward, its own B for a W). The
orders are the papers': naive model parallelism, GPipe (Huang et al. 2019), 1F1B
(PipeDream-Flush) and interleaved 1F1B (Narayanan et al. 2021), ZB-H1, ZB-H2 and ZB-V (Qi et
al. 2023), DualPipe and DualPipeV (DeepSeek-V3, 2024; deepseek-ai/DualPipe).

Time is in slots: one slot is one chunk's forward (a whole stage's when a GPU holds one).
Backward takes `backward` slots (1 by default; the pictures use 2, as Narayanan et al. draw
it). In the split schedules B (input gradient) takes `backward` and W `weight` slots, a
full backward both, and DualPipe's overlapped forward-and-backward pair (FB) all three: the
overlap hides communication, not compute. The bubble is idle time over total GPU time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property

from bot.domain import pipeline_orders as orders_of
from bot.domain.pipeline_orders import Step

KINDS = ("naive", "gpipe", "1f1b", "interleaved", "zbh1", "zbh2", "zbv", "dualpipe",
         "dualpipev")
SPLIT = frozenset({"zbh1", "zbh2", "zbv", "dualpipe", "dualpipev"})  # backward split into B and W
_NAME = re.compile(
    r"(naive|gpipe|1f1b|interleaved|zbh[12]|zbv|dualpipev?)-p(\d+)-m(\d+)(?:-v(\d+))?")
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
        if self.kind.startswith("dualpipe") and (self.m < 2 * self.p or self.m % 2):
            raise ValueError(f"{self.kind} needs an even m of at least 2p")
        if self.kind == "dualpipe" and self.p % 2:
            raise ValueError("DualPipe needs an even p")

    @property
    def chunks(self) -> int:
        """Model chunks per GPU, each 1/chunks of a stage: v interleaved, 2 in a V."""
        return 2 if self.kind in ("zbv", "dualpipev") else self.v

    @property
    def paths(self) -> int:
        """2 for DualPipe (micro-batches enter at both ends, each GPU holds two stages)."""
        return 2 if self.kind == "dualpipe" else 1

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
    """One forward, backward or weight pass of micro-batch `micro` (0-based) on a GPU's
    `chunk`; for an overlapped pair (FB) the forward's, with the backward's in micro2, chunk2.
    On DualPipe the chunk is the direction and micro-batches count per direction."""

    stage: int
    kind: str  # "F", "B", "W" or "FB"
    micro: int
    chunk: int
    start: int
    end: int
    micro2: int = 0
    chunk2: int = 0

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

    def idle(self, stage: int) -> int:
        """Slots GPU `stage` waits in the step."""
        return self.makespan - sum(op.end - op.start for op in self.ops if op.stage == stage)

    def gaps(self, stage: int) -> int:
        """Idle slots between GPU `stage`'s first start and last end (0: a parallelogram,
        which the next step's first forwards can meet without a bubble)."""
        mine = [op for op in self.ops if op.stage == stage]
        span = max(op.end for op in mine) - min(op.start for op in mine)
        return span - sum(op.end - op.start for op in mine)

    def peak_in_flight(self, stage: int) -> int:
        """Most micro-batches whose activations GPU `stage` holds at once (forward done,
        backward (B) not finished), counted per chunk; a W keeps only its smaller inputs."""
        live = peak = 0
        for op in sorted((op for op in self.ops if op.stage == stage), key=lambda o: o.end):
            live += op.kind.count("F")
            peak = max(peak, live)
            live -= op.kind.count("B")
        return peak


def _orders(spec: ScheduleSpec) -> list[list[Step]]:
    """Per GPU, its steps in the order it runs them."""
    p, m = spec.p, spec.m
    if spec.kind == "zbv":
        return orders_of.zb_v(p, m)
    if spec.kind == "zbh2":
        return orders_of.zb_h2(p, m)
    if spec.kind == "dualpipe":
        return [orders_of.dual(p // 2, m // 2, min(d, p - 1 - d), d >= p // 2) for d in range(p)]
    if spec.kind == "dualpipev":
        return [orders_of.dual(p, m, d, False) for d in range(p)]
    if spec.kind == "interleaved":
        return [orders_of.interleaved(p, m, spec.v, d) for d in range(p)]
    if spec.kind == "zbh1":
        return [orders_of.zb_h1(p, m, d) for d in range(p)]
    return [orders_of.classic(spec.kind, p, m, d) for d in range(p)]


def _place(spec: ScheduleSpec, d: int, chunk: int) -> tuple[int, int]:
    """(path, virtual stage) of GPU d's chunk: the layer block it holds on its path."""
    p = spec.p
    if spec.kind == "dualpipe":  # path 1 enters at the last GPU
        return chunk, d if chunk == 0 else p - 1 - d
    if spec.kind in ("zbv", "dualpipev"):  # a V: down the GPUs and back up
        return 0, d if chunk == 0 else 2 * p - 1 - d
    return 0, chunk * p + d


Key = tuple[str, int, int, int]  # (kind, micro, path, virtual stage)


def _needs(kind: str, micro: int, path: int, vs: int, last: int) -> Key | None:
    if kind == "F":
        return ("F", micro, path, vs - 1) if vs > 0 else None
    if kind == "B":
        return ("B", micro, path, vs + 1) if vs < last else ("F", micro, path, vs)
    return ("B", micro, path, vs)


def simulate(spec: ScheduleSpec, *, backward: int = 1, weight: int = 1,
             stretch: tuple[int, ...] = ()) -> Schedule:
    """Run the schedule's rules: every operation as early as its GPU and its input allow.
    `weight` is W's length, only in the schedules that split the backward; `stretch` makes
    GPU d's every operation stretch[d] times longer (an unbalanced pipeline)."""
    p = spec.p
    if stretch and (len(stretch) != p or min(stretch) < 1):
        raise ValueError(f"stretch needs {p} factors of at least 1, got {stretch}")
    factor = stretch or (1,) * p
    last = p * spec.chunks - 1 if spec.paths == 1 else p - 1
    split = spec.kind in SPLIT
    orders = _orders(spec)
    done: dict[Key, int] = {}
    free, nxt = [0] * p, [0] * p
    ops: list[Op] = []
    while any(nxt[d] < len(orders[d]) for d in range(p)):
        progressed = False
        for d in range(p):
            while nxt[d] < len(orders[d]):
                step = orders[d][nxt[d]]
                parts = [("F", step.micro, step.chunk), ("B", step.micro2, step.chunk2)] \
                    if step.kind == "FB" else [(step.kind, step.micro, step.chunk)]
                keys = [(k, i, *_place(spec, d, c)) for k, i, c in parts]
                deps = [_needs(k, i, path, vs, last) for k, i, path, vs in keys]
                if any(dep is not None and dep not in done for dep in deps):
                    break
                start = max([free[d]] + [done[dep] for dep in deps if dep is not None])
                end = start + factor[d] * _length(step, split, backward, weight)
                for key in keys:
                    done[key] = end
                free[d] = end
                ops.append(Op(d, step.kind, step.micro, step.chunk, start, end,
                              step.micro2, step.chunk2))
                nxt[d] += 1
                progressed = True
        if not progressed:
            raise ValueError(f"{spec.name}: the schedule deadlocks")
    return Schedule(spec, tuple(sorted(ops, key=lambda o: (o.stage, o.start))))


def _length(step: Step, split: bool, backward: int, weight: int) -> int:
    if step.kind == "F":
        return 1
    if step.kind == "W":
        return weight
    full = backward + weight if split else backward
    if step.kind == "FB":
        return 1 + full
    return full if step.full or not split else backward


def pictured(spec: ScheduleSpec) -> Schedule:
    """The schedule as its picture and a learner's timeline draw it: a whole backward twice
    a forward, as Narayanan et al. draw it (split schedules: B and W one slot each)."""
    return simulate(spec, backward=1 if spec.kind in SPLIT else 2)


@cache  # pure, and asked for on every answer to a pictured question
def timeline(spec: ScheduleSpec, *, idle: str = ".", as_pictured: bool = False) -> str:
    """The schedule as text, one row per GPU and one column per slot, bubble dotted
    (`as_pictured`: slot for slot the picture, whose explanation counts its slots):

    GPU1 F1 F2 F3 F4 .. .. .. .. .. .. B4 B3 B2 B1
    """
    sched = pictured(spec) if as_pictured else simulate(spec)
    marked = spec.chunks > 1 or spec.paths > 1

    def mark(kind: str, micro: int, chunk: int) -> str:
        return f"{kind}{micro + 1}" + ("abcdefgh"[chunk] if marked else "")

    def cells(op: Op) -> list[str]:
        """An operation's label in its first slot, `~` in the slots it goes on; an overlapped
        pair reads `F4a +B2b`."""
        first = [mark("F", op.micro, op.chunk), "+" + mark("B", op.micro2, op.chunk2)] \
            if op.kind == "FB" else [mark(op.kind, op.micro, op.chunk)]
        return (first + ["~"] * (op.end - op.start))[:op.end - op.start]

    rows: list[list[str]] = []
    for d in range(spec.p):
        row: list[str] = []
        for t, op in enumerate(sched.row(d)):
            row.append("" if op is None else cells(op)[t - op.start])
        rows.append(row)
    width = max(len(cell) for row in rows for cell in row)
    head = len(f"GPU{spec.p}")
    return "\n".join(
        f"GPU{d + 1}".ljust(head) + " " + " ".join(
            cell.ljust(width) if cell else idle * width for cell in row).rstrip()
        for d, row in enumerate(rows))
