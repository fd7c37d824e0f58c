"""After start-up, tune the interpreter for a server that answers taps: two settings.

**The garbage collector.** A running bot holds tens of thousands of long-lived objects (the
quizzes in both languages, the locales, the modules, the libraries' tables). The cyclic
collector walks all of them in every full collection, with the GIL held: every thread stops,
and a learner's tap waits for it (`bench/engine_bench.py` counts these pauses). `settle()`
moves everything alive at that moment into the collector's permanent generation
(`gc.freeze()`, made for long-running servers), so later collections only walk what was made
since; and a larger first generation lets an answer's short-lived objects die young instead
of being promoted and walked again. Reference counting still frees everything as before:
only the search for cycles changes, and frozen objects are never freed (they live for the
whole run anyway).

**The GIL's switch interval.** The SQLite writer runs each batch of answers on its own thread
(`bot.store.group_commit`), and every statement gives up the GIL while SQLite works and takes
it back after. When the event loop is busy, taking it back waits for the loop to be asked to
let go, which CPython does only after the switch interval (5 ms by default): a batch of a few
answers could wait tens of milliseconds in turns. At 1 ms the writer gets its turns sooner;
the loop is asked to let go more often only while the writer actually waits.
"""

from __future__ import annotations

import gc
import logging
import sys

log = logging.getLogger(__name__)

YOUNG = 10_000  # allocations between first-generation collections (CPython's default: 700)
SWITCH_INTERVAL_S = 0.001  # CPython's default: 0.005


def settle() -> None:
    """Collect once, freeze the survivors, collect the young less often, and let threads
    waiting for the GIL have it sooner."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    log.info("runtime settled: %d objects frozen out of the collector's walks, GIL switch "
             "interval %g ms", gc.get_freeze_count(), SWITCH_INTERVAL_S * 1000)
