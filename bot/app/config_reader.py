"""Reading the config file (`read_yaml`: a key given twice is refused, not silently
replaced) and typed, dotted-key access to its nested mappings (`bot.app.config` reads through
it): every bad key fails with one line naming the file, the key and what is wrong."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from bot.domain.errors import ConfigError
from bot.domain.quiz.yaml_lines import duplicate_keys

SECRET_KEYS = frozenset({"secret_token"})  # never echoed in an error message
# What each type is called in an error: a maintainer reads "must be a whole number", not "int".
KINDS = {bool: "true or false", int: "a whole number", float: "a number", str: "text",
         dict: "a section (indented key: value lines)", list: "a list, such as [a, b]"}
# YAML 1.1 reads these unquoted words as true or false, so `synchronous: off` arrives as False.
YAML_BOOL_HINT = (" (YAML reads an unquoted yes, no, on or off as true or false: put the value "
                  "in quotes)")


class Reader:
    """Typed access to a nested mapping, with the dotted key in every error."""

    def __init__(self, data: Mapping[str, Any], prefix: str, source: str) -> None:
        self.data, self.prefix, self.source = data, prefix, source
        self.used: set[str] = set()

    def _fail(self, key: str, why: str) -> ConfigError:
        return ConfigError(f"{self.source}: {self.prefix}{key} {why}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        self.used.add(key)
        if key not in self.data or self.data[key] is None:
            return default
        value = self.data[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
            raise self._fail(key, f"must be {_names(kind)}, got {self._shown(key, value)}")
        return value

    def _shown(self, key: str, value: Any) -> str:
        if key in SECRET_KEYS:
            return "a value not shown here"
        return repr(value) + (YAML_BOOL_HINT if isinstance(value, bool) else "")

    def integer(self, key: str, default: int, low: int, high: int | None = None) -> int:
        """An int in [low, high] (no upper bound when `high` is None)."""
        value = self.get(key, int, default)
        if value < low or (high is not None and value > high):
            bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise self._fail(key, f"must be {bounds}, got {value!r}")
        return int(value)

    def seconds(self, key: str, default: float, low: float, high: float) -> float:
        """A number of seconds in [low, high]."""
        value = self.get(key, (int, float), default)
        if not low <= value <= high:
            raise self._fail(key, f"must be from {low:g} to {high:g} seconds, got {value!r}")
        return float(value)

    def url(self, key: str, default: str | None, schemes: tuple[str, ...]) -> Any:
        """A URL with one of `schemes` and a host."""
        value = self.get(key, str, default)
        if value is not None and value != default:
            scheme, _, rest = value.partition("://")
            if scheme not in schemes or not rest.split("/")[0] or not _connectable(value):
                raise self._fail(key, f"must be a {' or '.join(schemes)} URL such as "
                                      f"{schemes[0]}://127.0.0.1:8080/..., got {value!r}")
        return value

    def site(self, key: str) -> str:
        """An http(s) URL with no path, query or fragment: a site's own address, for pages
        served at its root ("" when not set)."""
        value = str(self.url(key, "", ("https", "http"))).rstrip("/")
        if any(c in value.partition("://")[2] for c in "/?#"):
            raise self._fail(key, "must be the site's address alone, such as https://quiz."
                                  f"example.org, got {value!r}: the dashboard is served at its "
                                  "/app and /api/ (deploy/nginx.conf)")
        return value

    def choice(self, key: str, choices: tuple[str, ...], default: str) -> str:
        value = self.data.get(key)
        if value is not None and not isinstance(value, str):  # e.g. `synchronous: off`
            raise self._fail(key, f"must be one of {', '.join(choices)}, got "
                                  f"{self._shown(key, value)}")
        value = self.get(key, str, default)
        if value not in choices:
            raise self._fail(key, f"must be one of {', '.join(choices)}, got {value!r}")
        return str(value)

    def section(self, key: str) -> Reader:
        return Reader(self.get(key, dict, {}), f"{self.prefix}{key}.", self.source)

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise self._fail(unknown[0], "is not a known key (see deploy/config.example.yaml)")


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _names(kind: type | tuple[type, ...]) -> str:
    kinds = _tuple(kind)
    return KINDS[float] if float in kinds else " or ".join(KINDS.get(k, k.__name__) for k in kinds)


def read_yaml(path: Path) -> Any:
    """The YAML document in the config file `path`; ConfigError in one line naming the file
    (and the line, for a YAML error) and what to do."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file; start one from "
                          "deploy/config.example.yaml (every key is optional)") from None
    except OSError as exc:
        # a folder, or a file the service's user may not read (installed without -g quizbot)
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}; --config names a YAML file "
                          "the user running quizbot can read (systemd: owner root, group "
                          "quizbot, mode 0640; docs/deploy.md)") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: is not UTF-8 text (byte {exc.start + 1}); save it as "
                          "UTF-8") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        # YAML keeps the last: a `web:` section added at the end of a copied example would
        # drop the first one's keys without a word
        if twice := duplicate_keys(node) if node is not None else []:
            key, first, again = twice[0]
            raise ConfigError(f"{path}: {key} is given twice (lines {first} and {again}); "
                              "YAML keeps only the last, so merge them")
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        context = f" ({exc.context})" if exc.context else ""
        raise ConfigError(f"{where}: is not valid YAML: {exc.problem}{context}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: is not valid YAML: {exc}") from None


def _connectable(url: str) -> bool:
    """A host, and a port from 1 to 65535 when one is given: http://127.0.0.1:99999/bot or
    http://[bad/bot passed and then failed every start-up retry as 'unreachable'."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port out of range or not a number, an unclosed [
        return False
    return bool(parts.hostname) and port != 0 and not any(c.isspace() for c in parts.netloc)
