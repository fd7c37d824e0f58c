"""The store contract runs on both backends (`tests.backends`: sqlite or postgres)."""

from __future__ import annotations

import pytest

from bot.store.protocol import Store
from tests.backends import Opener

__all__ = ["Opener"]


@pytest.fixture
async def any_store(open_store: Opener) -> Store:
    return await open_store()
