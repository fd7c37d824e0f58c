"""Storage URLs: which backend a URL names, and keeping its password out of sight.

A PostgreSQL URL may carry a password (`postgresql://user:pw@host/db`). It is split off
into a `bot.app.config.Secret` as soon as the URL is read, so the URL kept in the config,
printed in an
error or written to a log has none; only the driver is handed the password.
"""

from __future__ import annotations

from urllib.parse import quote, unquote, urlsplit, urlunsplit

from bot.domain.errors import ConfigError

POSTGRES_SCHEMES = ("postgresql", "postgres")


def scheme_of(url: str) -> str:
    """'sqlite', 'postgresql' or whatever else the URL starts with ('' for none)."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    return "postgresql" if scheme in POSTGRES_SCHEMES else scheme


def split_password(url: str) -> tuple[str, str]:
    """The URL without its password, and the password ('' if none): wrap it in a Secret."""
    if scheme_of(url) != "postgresql":
        return url, ""
    try:
        parts = urlsplit(url)
        password = parts.password
        _ = parts.port  # a non-numeric port raises here, before it can reach a message
    except ValueError:
        raise ConfigError("storage.url is not a valid postgresql:// URL "
                          "(postgresql://user:password@host:port/dbname)") from None
    if password is None:
        return url, ""
    user = quote(unquote(parts.username or ""), safe="")
    host = parts.netloc.rsplit("@", 1)[1]
    netloc = f"{user}@{host}" if user else host
    return urlunsplit(parts._replace(netloc=netloc)), unquote(password)


def redact(url: str) -> str:
    """The URL as it may be shown: any password replaced by ***."""
    bare, password = split_password(url)
    if not password:
        return bare
    parts = urlsplit(bare)
    user, host = parts.netloc.rsplit("@", 1) if "@" in parts.netloc else ("", parts.netloc)
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def scrubbed(exc: BaseException, url: str, password: str | None) -> str:
    """The driver's message, with the URL redacted and the password gone, whatever it said."""
    text = str(exc).replace(url, redact(url)) or type(exc).__name__
    for secret in filter(None, (password, split_password(url)[1])):
        text = text.replace(secret, "***")
    return text


# What to do about the failures a maintainer meets first, by the driver's exception class
# (asyncpg's names; OSError covers a refused connection, an unknown host, a timeout).
REMEDIES = {
    "InvalidPasswordError": "check the password (in the URL, or PGPASSWORD)",
    "InvalidAuthorizationSpecificationError": "check the user name in the URL",
    "InvalidCatalogNameError": "create the database (createdb, or Compose's postgres "
                               "service) or fix its name in the URL",
}
UNREACHABLE = ("is PostgreSQL running and listening there? check the host and port in the URL")


def remedy(exc: BaseException) -> str:
    """'; what to do' for a connection failure we know, else ''."""
    hint = REMEDIES.get(type(exc).__name__)
    if hint is None and isinstance(exc, OSError):
        hint = UNREACHABLE
    return f"; {hint}" if hint else ""
