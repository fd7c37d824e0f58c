"""The store: a `Store` port, its SQLite and PostgreSQL implementations, migrations.

`open_store` picks the implementation from the scheme of `storage.url`; each backend is
imported only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from bot.domain.errors import ConfigError
from bot.domain.secret import Secret
from bot.store.urls import scheme_of

if TYPE_CHECKING:
    from bot.store.protocol import Store


class StorageSettings(Protocol):
    """The `storage.*` keys (`bot.app.config.Config` has them): the store needs no more."""

    @property
    def storage_url(self) -> str: ...
    @property
    def storage_password(self) -> Secret: ...
    @property
    def storage_pool_size(self) -> int: ...
    @property
    def storage_synchronous(self) -> str: ...


async def open_url(url: str, *, password: Secret | None = None, pool_size: int = 10,
                   synchronous: str = "full", setting: str = "storage.url") -> Store:
    """Open the store a URL names: sqlite:///path or postgresql://user@host:port/db; a
    refusal says to point `setting` (what gave the URL) elsewhere."""
    scheme = scheme_of(url)
    if scheme == "sqlite":
        from bot.store.sqlite import SQLiteStore

        return await SQLiteStore.open(url, synchronous=synchronous, setting=setting)
    if scheme == "postgresql":
        from bot.store.postgres import PostgresStore

        return await PostgresStore.open(url, password=password, pool_size=pool_size,
                                        setting=setting)
    raise ConfigError(
        "storage.url must be sqlite:///path/to.db or postgresql://user:password@host:port/db "
        f"(got {f'a {scheme}: URL' if scheme else 'a URL with no scheme'})")


async def open_store(config: StorageSettings) -> Store:
    """The store `storage.*` of the config describes, opened and migrated."""
    return await open_url(config.storage_url, password=config.storage_password,
                          pool_size=config.storage_pool_size,
                          synchronous=config.storage_synchronous)
