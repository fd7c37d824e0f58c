"""Configuration: one YAML file read once at start; fails fast naming the bad key.

Tokens never live in the file: they come from each platform's token variable
(`bot.domain.platforms`) and are wrapped in `Secret` so no repr, log line or traceback shows
them.

Hand-written on purpose (compared with pydantic-settings 2.x): `load_config` reads top to
bottom in the order of deploy/config.example.yaml, and each bad key gets one line naming
the file, the dotted key and what is wrong, which maintainers and tests rely on. With
pydantic-settings the same needs a YAML settings source, `extra="forbid"` on every nested
model, a custom formatter for its multi-line validation errors, and tokens kept out of the
file source, for about twenty keys, on top of pydantic and its compiled core.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app.config_reader import Reader, read_yaml
from bot.domain import product_limits as limits
from bot.domain.errors import ConfigError
from bot.domain.platforms import DISCORD, PLATFORMS, TELEGRAM, chat_apps
from bot.domain.quiz import default_content_dir
from bot.domain.secret import Secret
from bot.store.urls import scheme_of, split_password

TELEGRAM_TOKEN_ENV = TELEGRAM.token_env
DISCORD_TOKEN_ENV = DISCORD.token_env
# Sections read into typed dataclasses below; any other registered chat app's section is
# kept as it is written (`Config.sections`) for its adapter, with `enabled` checked here.
TYPED_SECTIONS = frozenset({"telegram", "discord"})
# The key the dashboard's Discord links are signed with (at least 32 bytes, e.g.
# `openssl rand -hex 32`; every process of one bot needs the same). Unset: derived from
# DISCORD_BOT_TOKEN (bot.features.dashboard.auth). A short one can be guessed from one link.
WEB_SECRET_ENV = "QUIZBOT_WEB_SECRET"
WEB_SECRET_MIN_BYTES = 32
TELEGRAM_API = "https://api.telegram.org/bot"
DISCORD_API = "https://discord.com/api/v10"
MAX_CONCURRENT_UPDATES = 1024  # PTB keeps one HTTP connection per update in flight
MAX_SHARDS = 4096
WEBHOOK_SECRET_CHARS = re.compile(r"[A-Za-z0-9_-]+")  # what Telegram's secret_token allows
WEBHOOK_SECRET_MAX = 256


@dataclass(frozen=True)
class WebhookConfig:
    listen: str = "0.0.0.0"
    port: int = 8443
    url_path: str = "telegram"
    public_url: str = ""
    secret_token: Secret = field(default_factory=lambda: Secret(""), repr=False)
    # Whether `quizbot run` calls setWebhook at start. Several workers behind one proxy set
    # it false and register once with `quizbot telegram set-webhook`.
    register: bool = True


@dataclass(frozen=True)
class TelegramConfig:
    enabled: bool = True
    api_base_url: str = TELEGRAM_API
    mode: str = "polling"
    webhook: WebhookConfig = field(default_factory=WebhookConfig)
    # Updates handled at once (each user's in order). Telegram allows ~30 messages/s per bot,
    # so more concurrency buys nothing but a bigger HTTP pool to manage.
    concurrent_updates: int = 64


@dataclass(frozen=True)
class DiscordConfig:
    enabled: bool = True
    api_base_url: str = DISCORD_API
    gateway_url: str | None = None
    guild_ids: tuple[int, ...] = ()
    shards: str | int | None = None  # None: one shard; "auto": AutoShardedClient; n: n shards
    shard_ids: tuple[int, ...] | None = None  # the shards this process runs (None: all)
    announce_results: bool = False  # post "X scored 7/8" publicly in the channel


@dataclass(frozen=True)
class MetricsConfig:
    port: int | None = None  # None: no /healthz or /metrics server
    listen: str = "127.0.0.1"


@dataclass(frozen=True)
class WebConfig:
    port: int | None = None  # None: no main web server (the dashboard needs one)
    listen: str = "127.0.0.1"  # behind the TLS proxy (deploy/nginx.conf)
    public_url: str = ""  # the https address users open (Mini App, signed links)
    rate_limit: int = 60  # /api/* requests a minute per learner (ten learners' per address)


@dataclass(frozen=True)
class RoundsConfig:
    default_seconds: int = limits.DEFAULT_SECONDS  # a study-group round's question stays open
    reveal_seconds: float = limits.DEFAULT_REVEAL_SECONDS  # from a reveal to the next question


@dataclass(frozen=True)
class DailyConfig:
    close_hours: float = limits.DEFAULT_CLOSE_HOURS  # hours each question of the day stays open


@dataclass(frozen=True)
class Config:
    storage_url: str = "sqlite:///data/quizbot.db"
    storage_synchronous: str = "full"
    storage_pool_size: int = 10  # PostgreSQL connections per process
    # The password of a postgresql:// storage.url, split off so storage_url never shows it.
    storage_password: Secret = field(default_factory=lambda: Secret(""), repr=False)
    content_dir: Path = field(default_factory=default_content_dir)
    default_quiz: str | None = None
    default_language: str = "en"
    shuffle_questions: bool = False
    telegram: TelegramConfig = field(default_factory=TelegramConfig)
    discord: DiscordConfig = field(default_factory=DiscordConfig)
    rounds: RoundsConfig = field(default_factory=RoundsConfig)
    daily: DailyConfig = field(default_factory=DailyConfig)
    admins: Mapping[str, frozenset[str]] = field(default_factory=dict)
    log_level: str = "INFO"
    # How long an unreachable platform API is retried at start before quizbot gives up.
    startup_timeout: float = 60.0
    log_format: str = "text"
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    web: WebConfig = field(default_factory=WebConfig)
    # Bot tokens by platform, from each platform's token variable (bot.domain.platforms).
    tokens: Mapping[str, Secret] = field(default_factory=dict, repr=False)
    sections: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    web_secret: Secret = field(default_factory=lambda: Secret(""), repr=False)
    file: Path | None = field(default=None, compare=False)  # read from (None: the defaults)

    def token(self, platform: str) -> Secret:
        """The platform's bot token ("" when its variable is not set)."""
        return self.tokens.get(platform) or Secret("")

    def enabled(self, platform: str) -> bool:
        """Whether the config lets the platform run (`<section>.enabled`, default true)."""
        section = PLATFORMS[platform].config_section
        typed = getattr(self, section, None) if section in TYPED_SECTIONS else None
        if typed is not None:
            return bool(typed.enabled)
        return bool(self.sections.get(section or "", {}).get("enabled", True))

    @property
    def telegram_token(self) -> Secret:
        """TELEGRAM_BOT_TOKEN."""
        return self.token(TELEGRAM.name)

    @property
    def discord_token(self) -> Secret:
        """DISCORD_BOT_TOKEN."""
        return self.token(DISCORD.name)


def webhook_secret_problem(secret: str, source: str, *, from_env: bool) -> str | None:
    """Why Telegram would refuse this webhook secret (its value never said), or None: it
    takes 1-256 characters of A-Z a-z 0-9 _ - and answers anything else 400 at setWebhook."""
    if not secret or (len(secret) <= WEBHOOK_SECRET_MAX and WEBHOOK_SECRET_CHARS.fullmatch(secret)):
        return None
    name = "TELEGRAM_WEBHOOK_SECRET" if from_env else "telegram.webhook.secret_token"
    why = (f"has {len(secret)} characters" if len(secret) > WEBHOOK_SECRET_MAX
           else "has a character outside those")
    return (f"{source}: {name} must be 1-{WEBHOOK_SECRET_MAX} characters of A-Z a-z 0-9 _ - "
            f"(Telegram refuses others), and it {why}; make one with `openssl rand -hex 32`")


def _url_kind(url: str) -> str:
    """What a URL is, for a message: never the URL itself (it may carry a password)."""
    scheme = scheme_of(url)
    return f"a {scheme}: URL" if scheme and scheme != "sqlite" else (
        f"{url!r}" if scheme else "no scheme")


WILDCARDS = frozenset({"0.0.0.0", "::", ""})  # every interface: no other address can share


def _one_server_per_port(source: str, telegram: TelegramConfig, metrics: MetricsConfig,
                         web: WebConfig) -> None:
    """ConfigError when two HTTP servers would take one port from different listen addresses
    and one of them is every interface: bind fails with a bare "address in use"."""
    wanted = [("web", web.listen, web.port), ("metrics", metrics.listen, metrics.port)]
    if telegram.enabled and telegram.mode == "webhook":
        wanted.append(("telegram.webhook", telegram.webhook.listen, telegram.webhook.port))
    taken: dict[int, tuple[str, str]] = {}
    for key, listen, port in wanted:
        if port is None:
            continue
        other, other_listen = taken.setdefault(port, (key, listen))
        if other_listen != listen and WILDCARDS & {listen, other_listen}:
            raise ConfigError(
                f"{source}: {other}.port and {key}.port are both {port} on different "
                f"addresses ({other}.listen {other_listen}, {key}.listen {listen}); one "
                f"port is one server: give both the same listen to share it, or another port")


def web_secret(env: Mapping[str, str], source: str) -> Secret:
    """QUIZBOT_WEB_SECRET from the environment; a ConfigError when set but shorter than
    WEB_SECRET_MIN_BYTES (its length is said, never its value)."""
    value = env.get(WEB_SECRET_ENV, "").strip()
    size = len(value.encode())
    if value and size < WEB_SECRET_MIN_BYTES:
        raise ConfigError(f"{source}: {WEB_SECRET_ENV} must be at least {WEB_SECRET_MIN_BYTES} "
                          f"bytes, got {size}; make one with `openssl rand -hex 32`")
    return Secret(value)


def load_config(path: Path | None, env: Mapping[str, str] | None = None) -> Config:
    """Read the YAML config (or defaults when `path` is None) and tokens from `env`."""
    env = os.environ if env is None else env
    source = str(path) if path else "<defaults>"
    data: Any = {}
    if path is not None:
        data = read_yaml(path) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: must be a mapping of settings (key: value lines, "
                              "as in deploy/config.example.yaml)")
    root = Reader(data, "", source)

    storage = root.section("storage")
    url = storage.get("url", str, Config.storage_url)
    synchronous = storage.choice("synchronous", ("full", "normal"), Config.storage_synchronous)
    pool_size = storage.get("pool_size", int, Config.storage_pool_size)
    if not 1 <= pool_size <= 1000:
        raise ConfigError(f"{source}: storage.pool_size must be 1 to 1000, got {pool_size}")
    storage.done()
    if not ((url.startswith("sqlite:///") and len(url) > len("sqlite:///"))
            or scheme_of(url) == "postgresql"):
        raise ConfigError(f"{source}: storage.url must be sqlite:///relative/path.db, "
                          "sqlite:////absolute/path.db or postgresql://user@host:port/dbname, "
                          f"got {_url_kind(url)}")
    url, storage_password = split_password(url)
    content = root.section("content")
    content_dir = content.get("dir", str, None)
    content.done()
    if content_dir and not Path(content_dir).is_dir():
        raise ConfigError(f"{source}: content.dir {content_dir!r} is not a folder; name the "
                          "folder holding your quiz .yaml files (relative paths start in the "
                          "working directory), or leave the key out for the shipped quizzes")
    quiz = root.section("quiz")
    default_quiz = quiz.get("default", str, None)
    default_language = quiz.choice("default_language", ("en", "ur"), "en")
    shuffle = quiz.get("shuffle_questions", bool, False)
    quiz.done()

    tg = root.section("telegram")
    hook = tg.section("webhook")
    webhook = WebhookConfig(
        listen=hook.get("listen", str, WebhookConfig.listen),
        port=hook.integer("port", WebhookConfig.port, 1, 65535),
        url_path=hook.get("url_path", str, WebhookConfig.url_path).strip("/"),
        public_url=hook.url("public_url", "", ("https", "http")),
        secret_token=Secret(hook.get("secret_token", str, "")
                            or env.get("TELEGRAM_WEBHOOK_SECRET", "")),
        register=hook.get("register", bool, True),
    )
    hook.done()
    # Checked whenever set (`quizbot telegram set-webhook` sends it in any mode).
    if problem := webhook_secret_problem(webhook.secret_token.reveal(), source,
                                         from_env=not hook.data.get("secret_token")):
        raise ConfigError(problem)
    telegram = TelegramConfig(
        enabled=tg.get("enabled", bool, True),
        api_base_url=tg.url("api_base_url", TELEGRAM_API, ("https", "http")),
        mode=tg.choice("mode", ("polling", "webhook"), "polling"),
        webhook=webhook,
        concurrent_updates=tg.integer("concurrent_updates", TelegramConfig.concurrent_updates,
                                      1, MAX_CONCURRENT_UPDATES),
    )
    tg.done()
    if telegram.enabled and telegram.mode == "webhook":
        if not webhook.public_url:
            raise ConfigError(f"{source}: telegram.webhook.public_url is required in webhook mode")
        if not webhook.secret_token:
            raise ConfigError(f"{source}: telegram.webhook.secret_token is required in webhook "
                              "mode (or set TELEGRAM_WEBHOOK_SECRET)")

    dc = root.section("discord")
    guild_ids = dc.get("guild_ids", list, [])
    if not all(isinstance(g, int) and not isinstance(g, bool) and g > 0 for g in guild_ids):
        raise ConfigError(f"{source}: discord.guild_ids must be a list of integers "
                          "(guild ids, each above 0)")
    shards = dc.get("shards", (str, int), None)
    if (isinstance(shards, str) and shards != "auto") or (
            isinstance(shards, int) and not 1 <= shards <= MAX_SHARDS):
        raise ConfigError(f"{source}: discord.shards must be auto or a number from 1 to "
                          f"{MAX_SHARDS}, got {shards!r}")
    shard_ids = dc.get("shard_ids", list, None)
    if shard_ids is not None:
        if not isinstance(shards, int) or isinstance(shards, bool) or shards < 1:
            raise ConfigError(f"{source}: discord.shard_ids needs discord.shards set to the "
                              "total number of shards")
        if not shard_ids or not all(isinstance(i, int) and not isinstance(i, bool)
                                    and 0 <= i < shards for i in shard_ids):
            raise ConfigError(f"{source}: discord.shard_ids must be a non-empty list of "
                              f"shard numbers from 0 to {shards - 1}, got {shard_ids!r}")
        shard_ids = tuple(sorted(set(shard_ids)))
    discord = DiscordConfig(
        enabled=dc.get("enabled", bool, True),
        api_base_url=dc.url("api_base_url", DISCORD_API, ("https", "http")).rstrip("/"),
        gateway_url=dc.url("gateway_url", None, ("wss", "ws")),
        guild_ids=tuple(guild_ids),
        shards=shards,
        shard_ids=shard_ids,
        announce_results=dc.get("announce_results", bool, False),
    )
    dc.done()

    rd = root.section("rounds")
    rounds = RoundsConfig(
        default_seconds=rd.get("default_seconds", int, RoundsConfig.default_seconds),
        reveal_seconds=float(rd.get("reveal_seconds", (int, float), RoundsConfig.reveal_seconds)),
    )
    rd.done()
    if not limits.round_seconds_ok(rounds.default_seconds):
        raise ConfigError(f"{source}: rounds.default_seconds must be {limits.MIN_SECONDS}-"
                          f"{limits.MAX_SECONDS}, got {rounds.default_seconds}")
    if not 0 <= rounds.reveal_seconds <= limits.MAX_REVEAL_SECONDS:
        raise ConfigError(f"{source}: rounds.reveal_seconds must be "
                          f"0-{limits.MAX_REVEAL_SECONDS:g}, got {rounds.reveal_seconds}")

    dd = root.section("daily")
    daily = DailyConfig(close_hours=float(dd.get("close_hours", (int, float),
                                                 DailyConfig.close_hours)))
    dd.done()
    if not limits.close_hours_ok(daily.close_hours):
        raise ConfigError(f"{source}: daily.close_hours must be {limits.MIN_CLOSE_HOURS}-"
                          f"{limits.MAX_CLOSE_HOURS}, got {daily.close_hours:g}")

    admins_raw = root.get("admins", dict, {})
    admins = {}
    for platform, ids in admins_raw.items():
        if platform not in PLATFORMS or not isinstance(ids, list):
            raise ConfigError(f"{source}: admins.{platform} must be a list of ids under "
                              + " or ".join(p.name for p in chat_apps()))
        bad = [i for i in ids if PLATFORMS[platform].ids == "numeric" and (
            isinstance(i, bool) or not re.fullmatch(r"[1-9][0-9]*", str(i)))]
        if bad:  # a name or @username would never match anyone, silently
            raise ConfigError(f"{source}: admins.{platform} holds {bad[0]!r}, not a user id: "
                              "write the number (such as 123456789), not a name or @username "
                              "(docs/configuration.md says how to find it)")
        admins[platform] = frozenset(str(i) for i in ids)
    log_level = root.choice("log_level", ("DEBUG", "INFO", "WARNING", "ERROR"), "INFO")
    startup_timeout = root.seconds("startup_timeout", Config.startup_timeout, 1, 3600)
    log_format = root.choice("log_format", ("text", "json"), "text")
    mt = root.section("metrics")
    metrics_port = mt.get("port", int, None)
    if metrics_port is not None and not 1 <= metrics_port <= 65535:
        raise ConfigError(f"{source}: metrics.port must be between 1 and 65535, "
                          f"got {metrics_port}")
    metrics = MetricsConfig(port=metrics_port, listen=mt.get("listen", str, MetricsConfig.listen))
    mt.done()
    wb = root.section("web")
    web_port = wb.get("port", int, None)
    if web_port is not None and not 1 <= web_port <= 65535:
        raise ConfigError(f"{source}: web.port must be between 1 and 65535, got {web_port}")
    web = WebConfig(port=web_port, listen=wb.get("listen", str, WebConfig.listen),
                    public_url=wb.site("public_url"),
                    rate_limit=wb.integer("rate_limit", WebConfig.rate_limit, 1, 100_000))
    wb.done()
    _one_server_per_port(source, telegram, metrics, web)
    sections = {}
    for other in chat_apps():
        name = other.config_section
        if name and name not in TYPED_SECTIONS:
            section = root.section(name)
            section.get("enabled", bool, True)
            section.used.update(section.data)  # the adapter reads its own keys
            sections[name] = dict(section.data)
    root.done()

    return Config(
        storage_url=url,  # relative paths are relative to the working directory
        storage_synchronous=synchronous,
        storage_pool_size=pool_size,
        storage_password=Secret(storage_password),
        content_dir=Path(content_dir) if content_dir else default_content_dir(),
        default_quiz=default_quiz,
        default_language=default_language,
        shuffle_questions=shuffle,
        telegram=telegram,
        discord=discord,
        rounds=rounds,
        daily=daily,
        admins=admins,
        log_level=log_level,
        startup_timeout=startup_timeout,
        log_format=log_format,
        metrics=metrics,
        web=web,
        tokens={p.name: Secret(env.get(p.token_env, "").strip()) for p in chat_apps()},
        sections=sections,
        file=path,
        web_secret=web_secret(env, source),
    )
