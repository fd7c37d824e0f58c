"""After start-up, keep Python's garbage collector off what lives for the whole run.

A running bot holds tens of thousands of long-lived objects (the quizzes in both languages,
the locales, the modules, the libraries' tables). The cyclic collector walks all of them in
every full collection, with the GIL held: every thread stops, and a learner's tap waits for
it (`bench/engine_bench.py` counts these pauses). `settle()`, called once the bot has started,
moves everything alive at that moment into the collector's permanent generation
(`gc.freeze()`, made for long-running servers), so later collections only walk what was made
since; and a larger first generation lets an answer's short-lived objects die young instead
of being promoted and walked again. Reference counting still frees everything as before:
only the search for cycles changes, and frozen objects are never freed (they live for the
whole run anyway).
"""

from __future__ import annotations

import gc

YOUNG = 10_000  # allocations between first-generation collections (CPython's default: 700)


def settle() -> None:
    """Collect once, freeze the survivors, and collect the young less often."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)
