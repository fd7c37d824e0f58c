"""Before discord.py logs in: is the REST API there, and does it take our token?

discord.py's `Client.login` cannot be retried (each call opens a new HTTP session), and a
rejected token comes out of it as several chained tracebacks. So one GET /users/@me is made
here first, retried while the API cannot be reached, and a 401 becomes one line.
"""

from __future__ import annotations

from collections.abc import Callable

import aiohttp

from adapters.base.startup import until_up
from bot.domain.errors import StartupFailed

REQUEST_TIMEOUT = 10.0


class _Unavailable(Exception):
    """The API answered, but with a server error or a rate limit: try again later."""


async def check_token(api_base_url: str, token: str, *, give_up_after: float,
                      scrub: Callable[[str], str]) -> None:
    """Return once Discord accepts `token`; StartupFailed if it refuses it or stays down."""
    url = f"{api_base_url}/users/@me"
    headers = {"Authorization": f"Bot {token}", "User-Agent": "DiscordBot (quizbot, 1)"}

    async def attempt() -> None:
        async with session.get(url, headers=headers) as response:
            if response.status == 401:
                raise StartupFailed(
                    f"DISCORD_BOT_TOKEN was rejected by Discord at {api_base_url} (HTTP 401): "
                    "set the bot's current token (Developer Portal, Bot, Reset Token)")
            if response.status == 429 or response.status >= 500:
                raise _Unavailable(f"HTTP {response.status}")
            if response.status >= 400:
                raise StartupFailed(f"Discord at {api_base_url} refused the login (HTTP "
                                    f"{response.status}); check discord.api_base_url")

    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        await until_up(f"the Discord API at {api_base_url}", attempt,
                       transient=(aiohttp.ClientError, _Unavailable),
                       give_up_after=give_up_after, scrub=scrub,
                       hint="check discord.api_base_url and the network")
