"""UI strings per language, loaded from bot/locales/<lang>.yaml, and bidi handling for RTL."""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

LOCALES_DIR = Path(__file__).parent / "locales"
RTL_LANGUAGES = frozenset({"ur", "ar", "fa", "he"})

# Unicode bidi isolates: LRI ... PDI keeps a Latin run (A, GPU, Megatron-LM, 3/7) reading
# left to right inside a right-to-left line without reordering its neighbours.
LRI, PDI = "\u2066", "\u2069"
# A run starts at a letter or digit not glued to "/" or a word (so /quiz stays a command).
_LATIN_RUN = re.compile(
    r"(?<![/\w])[A-Za-z0-9][A-Za-z0-9_./+\-−×≈%]*(?:[ ][A-Za-z0-9][A-Za-z0-9_./+\-−×≈%]*)*"
)


def is_rtl(lang: str) -> bool:
    """True for languages written right to left."""
    return lang in RTL_LANGUAGES


def isolate(text: str) -> str:
    """Wrap one left-to-right fragment in bidi isolates."""
    return f"{LRI}{text}{PDI}"


def isolate_latin(text: str) -> str:
    """Isolate every Latin/number run of an RTL text, unless it is already isolated."""
    if LRI in text:
        return text
    return _LATIN_RUN.sub(lambda m: isolate(m.group(0)), text)


def strip_isolates(text: str) -> str:
    """Text without bidi isolates (for tests and length budgets)."""
    return text.replace(LRI, "").replace(PDI, "")


class Catalogue:
    """Every UI string in every shipped language; `t` formats one."""

    def __init__(self, strings: Mapping[str, Mapping[str, str]], default: str = "en") -> None:
        if default not in strings:
            raise ValueError(f"default language {default!r} has no catalogue")
        self._strings = strings
        self.default = default

    @classmethod
    def load(cls, directory: Path = LOCALES_DIR, default: str = "en") -> Catalogue:
        """Read every <lang>.yaml in `directory`."""
        strings: dict[str, dict[str, str]] = {}
        for path in sorted(directory.glob("*.yaml")):
            with path.open(encoding="utf-8") as fh:
                data = yaml.safe_load(fh)
            if not isinstance(data, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in data.items()
            ):
                raise ValueError(f"{path}: expected a mapping of string keys to strings")
            strings[path.stem] = data
        return cls(strings, default)

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(sorted(self._strings))

    def keys(self, lang: str) -> frozenset[str]:
        return frozenset(self._strings[lang])

    def raw(self, lang: str, key: str) -> str:
        """The unformatted template, falling back to the default language."""
        table = self._strings.get(lang, self._strings[self.default])
        return table.get(key) or self._strings[self.default][key]

    def t(self, lang: str, key: str, **params: Any) -> str:
        """Format `key` in `lang`; in RTL languages Latin fragments are bidi-isolated."""
        text = self.raw(lang, key).format(**params) if params else self.raw(lang, key)
        return isolate_latin(text) if is_rtl(lang) else text


def placeholders(template: str) -> frozenset[str]:
    """The {names} a template expects."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)
