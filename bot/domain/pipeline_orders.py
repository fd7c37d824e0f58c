"""The order each GPU runs its operations in, per schedule kind, from the papers' rules
(ZB-V: a list schedule with the paper's placement and memory cap, whose length and idle
slots, not its order within a row, match the authors' zbv.py; see content/README.md).

A step is forward (F), backward (B) or weight gradient (W) of one micro-batch on one chunk,
or an overlapped forward-and-backward pair (FB, DualPipe). In the Zero Bubble schedules
(Qi et al. 2023) B computes only the input gradient and W the weight gradient, so W can wait;
elsewhere B is the whole backward. `bot.domain.pipeline` turns an order into times.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple


class Step(NamedTuple):
    """One operation in a GPU's order. `full`: a B that also computes the weight gradient.
    For FB, (micro, chunk) is the forward and (micro2, chunk2) the overlapped backward."""

    kind: str
    micro: int
    chunk: int
    full: bool = False
    micro2: int = 0
    chunk2: int = 0


def classic(kind: str, p: int, m: int, d: int) -> list[Step]:
    """Naive, GPipe and 1F1B (PipeDream-Flush: p−d−1 warm-up forwards on GPU d)."""
    if kind == "naive":
        return [Step(k, i, 0) for i in range(m) for k in ("F", "B")]
    if kind == "gpipe":
        return [Step("F", i, 0) for i in range(m)] + [Step("B", i, 0) for i in reversed(range(m))]
    warm = min(p - d - 1, m)
    order = [Step("F", i, 0) for i in range(warm)]
    for i in range(m - warm):
        order += [Step("F", warm + i, 0), Step("B", i, 0)]
    return order + [Step("B", i, 0) for i in range(m - warm, m)]


def interleaved(p: int, m: int, v: int, d: int) -> list[Step]:
    """Megatron-LM's interleaved 1F1B order on GPU d (schedules.py, Narayanan et al. 2021)."""
    total = m * v

    def op(kind: str, k: int) -> Step:
        chunk = (k % (p * v)) // p
        if kind == "B":
            chunk = v - 1 - chunk
        return Step(kind, (k // (p * v)) * p + k % p, chunk)

    warm = total if m == p else min((p - d - 1) * 2 + (v - 1) * p, total)
    order = [op("F", k) for k in range(warm)]
    for k in range(total - warm):
        order += [op("F", warm + k), op("B", k)]
    return order + [op("B", k) for k in range(total - warm, total)]


def zb_h1(p: int, m: int, d: int) -> list[Step]:
    """ZB-H1: 1F1B's order with B split off W and GPU d's Ws put off by d micro-batches, so
    every GPU holds p micro-batches from F to W (1F1B's peak on GPU 1), B reaches upstream
    sooner and the late Ws fill the cool-down."""
    warm = min(p - d - 1, m)
    order = [Step("F", i, 0) for i in range(warm)]
    for i in range(m):
        if i < m - warm:
            order.append(Step("F", warm + i, 0))
        order.append(Step("B", i, 0))
        if i >= d:
            order.append(Step("W", i - d, 0))
    return order + [Step("W", i, 0) for i in range(max(m - d, 0), m)]


def zb_h2(p: int, m: int) -> list[list[Step]]:
    """ZB-H2's orders: GPU d takes up to 2(p−d)−1 micro-batches into flight (2p−1 on the
    first GPU, the paper's peak), so extra warm-up forwards fill the wait for the first B;
    each slot runs a ready B, else a ready F under that limit, else the oldest W, which moves
    the Ws to the tail and leaves no gap inside a row. Unit times (T_F = T_B = T_W)."""
    done: dict[tuple[str, int, int], int] = {}
    nf, nb, live = [0] * p, [0] * p, [0] * p
    waiting: list[deque[int]] = [deque() for _ in range(p)]
    orders: list[list[Step]] = [[] for _ in range(p)]
    t, left = 0, p * m * 3
    while left:
        now: dict[tuple[str, int, int], int] = {}
        for d in range(p):
            need_b = ("B", nb[d], d + 1) if d < p - 1 else ("F", nb[d], d)
            if nb[d] < m and done.get(need_b, t + 1) <= t:
                step = Step("B", nb[d], 0)
                nb[d] += 1
                live[d] -= 1
                waiting[d].append(step.micro)
            elif nf[d] < m and live[d] < 2 * (p - d) - 1 and (
                    d == 0 or done.get(("F", nf[d], d - 1), t + 1) <= t):
                step = Step("F", nf[d], 0)
                nf[d] += 1
                live[d] += 1
            elif waiting[d]:
                step = Step("W", waiting[d].popleft(), 0)
            else:
                continue
            now[(step.kind, step.micro, d)] = t + 1
            orders[d].append(step)
            left -= 1
        done.update(now)
        t += 1
    return orders


def zb_v(p: int, m: int) -> list[list[Step]]:
    """ZB-V's orders on all GPUs: two chunks per GPU in a V (GPU d holds stages d and
    2p−1−d), each GPU at each slot running a ready B first, then a ready F (the second
    chunk's first; the first chunk's only while fewer than 2p chunk-activations await their B,
    1F1B's peak), then the oldest W; a W goes before an F once p Ws wait, which bounds them.
    Unit times (T_F = T_B = T_W, as the paper assumes), so this is a list schedule."""
    last = 2 * p - 1
    done: dict[tuple[str, int, int], int] = {}
    nf = [[0, 0] for _ in range(p)]
    nb = [[0, 0] for _ in range(p)]
    waiting: list[deque[tuple[int, int]]] = [deque() for _ in range(p)]
    live = [0] * p
    orders: list[list[Step]] = [[] for _ in range(p)]
    t, left = 0, p * 2 * m * 3
    while left:
        now: dict[tuple[str, int, int], int] = {}
        for d in range(p):
            step = _zb_v_pick(p, m, d, t, done, nf[d], nb[d], waiting[d], live[d])
            if step is None:
                continue
            vs = d if step.chunk == 0 else last - d
            now[(step.kind, step.micro, vs)] = t + 1
            orders[d].append(step)
            left -= 1
            if step.kind == "F":
                nf[d][step.chunk] += 1
                live[d] += 1
            elif step.kind == "B":
                nb[d][step.chunk] += 1
                live[d] -= 1
                waiting[d].append((step.micro, step.chunk))
            else:
                waiting[d].popleft()
        done.update(now)
        t += 1
    return orders


def _zb_v_pick(p: int, m: int, d: int, t: int, done: dict[tuple[str, int, int], int],
               nf: list[int], nb: list[int], waiting: deque[tuple[int, int]],
               live: int) -> Step | None:
    last = 2 * p - 1

    def ready(key: tuple[str, int, int] | None) -> bool:
        return key is None or done.get(key, t + 1) <= t

    backs = [Step("B", nb[c], c) for c in (1, 0) if nb[c] < m and ready(
        ("F", nb[c], last) if (vs := d if c == 0 else last - d) == last
        else ("B", nb[c], vs + 1))]
    fores = [Step("F", nf[c], c) for c in (1, 0) if nf[c] < m and (c == 1 or live < 2 * p)
             and ready(None if (vs := d if c == 0 else last - d) == 0 else ("F", nf[c], vs - 1))]
    weights = [Step("W", *waiting[0])] if waiting else []
    picks = backs + weights + fores if len(waiting) >= p else backs + fores + weights
    return picks[0] if picks else None


def dual(n: int, mm: int, r: int, flip: bool) -> list[Step]:
    """DualPipe's eight steps on a rank (deepseek-ai/DualPipe, dualpipe.py and dualpipev.py).

    n ranks per half (DualPipe: p/2; DualPipeV: p), r the rank's place in its half, mm
    micro-batches per chunk. Phase 0 is the chunk whose input reaches this rank first; on
    DualPipe's second half that is chunk 1 (`flip`). Full backwards (B with W) except where
    the code enables zero bubble; then W joins a queue that W steps drain in order.
    """
    nf, nb = [0, 0], [0, 0]
    waiting: deque[tuple[int, int]] = deque()
    order: list[Step] = []

    def chunk(phase: int) -> int:
        return phase ^ int(flip)

    def f(phase: int) -> Step:
        c = chunk(phase)
        nf[c] += 1
        return Step("F", nf[c] - 1, c)

    def b(phase: int, zb: bool = False) -> Step:
        c = chunk(phase)
        nb[c] += 1
        if zb:
            waiting.append((nb[c] - 1, c))
        return Step("B", nb[c] - 1, c, full=not zb)

    def w() -> Step:
        micro, c = waiting.popleft()
        return Step("W", micro, c)

    def fb(phase0: int, phase1: int) -> Step:
        fwd, bwd = f(phase0), b(phase1)
        return Step("FB", fwd.micro, fwd.chunk, True, bwd.micro, bwd.chunk)

    order += [f(0) for _ in range((n - r - 1) * 2)]
    for _ in range(r + 1):
        order += [f(0), f(1)]
    for _ in range(n - r - 1):
        order += [b(1, zb=True), w(), f(1)]
    for i in range(mm - 2 * n + r + 1):
        if i == 0 and r == n - 1:  # the code runs these two apart to shorten the bubble
            order += [f(0), b(1)]
        else:
            order.append(fb(0, 1))
        order.append(fb(1, 0))
    for _ in range(n - r - 1):
        order += [b(1), fb(1, 0)]
    zb = False
    for i in range(r + 1):
        if i == (r + 1) // 2 and r % 2 == 1:
            zb = True
        order.append(b(1, zb))
        if i == (r + 1) // 2 and r % 2 == 0:
            zb = True
        order.append(b(0, zb))
    for _ in range(n - r - 1):
        order += [w(), b(0, zb=True)]
    order += [w() for _ in range(r + 1)]
    assert not waiting
    return order
