"""Once started, the bot moves what start-up loaded out of the collector's way and lets the
SQLite writer's thread have the GIL sooner."""

from __future__ import annotations

import gc
import sys

from bot.app import runtime


def test_settle_freezes_what_is_alive_and_collects_the_young_less_often():
    threshold, interval = gc.get_threshold(), sys.getswitchinterval()
    loaded = [{"question": i} for i in range(1000)]  # stands for the quizzes and locales
    try:
        runtime.settle()
        assert gc.get_freeze_count() >= len(loaded)
        assert gc.get_threshold() == (runtime.YOUNG, *threshold[1:])
        assert sys.getswitchinterval() == runtime.SWITCH_INTERVAL_S < interval
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
        sys.setswitchinterval(interval)
