"""Once started, the bot moves what start-up loaded out of the collector's way."""

from __future__ import annotations

import gc

from bot.app import heap


def test_settle_freezes_what_is_alive_and_collects_the_young_less_often():
    threshold = gc.get_threshold()
    loaded = [{"question": i} for i in range(1000)]  # stands for the quizzes and locales
    try:
        heap.settle()
        assert gc.get_freeze_count() >= len(loaded)
        assert gc.get_threshold() == (heap.YOUNG, *threshold[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
