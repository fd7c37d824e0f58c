"""UI strings per language and bidi handling for RTL.

`bot/present/locales/<lang>.yaml` holds every string; the ones with a number in them that
changes the words ("1 day", "3 days") are gettext catalogues, `<lang>.po`, read with Babel
and chosen with the language's plural rule (`Catalogue.t` picks the form by the number of
the parameter the entry names).
"""

from __future__ import annotations

import functools
import io
import re
import string
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from bot.domain.errors import DIRECTION_CONTROLS
from bot.domain.product_limits import NAME_SHOWN
from bot.domain.quiz.model import Text

LOCALES_DIR = Path(__file__).parent / "locales"
# libyaml's safe loader when PyYAML has it: the same strings, read ten times faster (every
# process reads both catalogues at start)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
RTL_LANGUAGES = frozenset({"ur", "ar", "fa", "he"})

# Unicode bidi isolates: LRI ... PDI keeps a left-to-right run (GPU, Megatron-LM, 3/8,
# "(p−1)/(m+p−1)", "3,072", "80 GB", a URL) reading left to right inside a right-to-left line.
# A run must be isolated *whole*: stopping it at "(", ")" or "," leaves those neutrals to the
# RTL paragraph, which then reorders the pieces ("3,072" shows as "072,3").
LRI, PDI = "\u2066", "\u2069"
_ISOLATES = "\u2066\u2067\u2068"
# Characters that belong to right-to-left scripts (Hebrew, Arabic, Urdu incl. ۔ ، ؟) and the
# bidi controls: everything else between them is one candidate left-to-right run.
_RTL = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff"
_CANDIDATE = re.compile(rf"[^{_RTL}\u2066-\u2069\u200e\u200f\n]+")
# Already isolated spans are left alone; so are bot commands (/quiz stays tappable). A
# command starts after a space, "(", a direction mark or an isolate ("\u200e/daily off"), as
# Telegram finds one after any character that is no letter or digit: isolating from the
# name on ("/\u2066daily off\u2069") would split the slash off and the command off the app.
_COMMAND = r"(?<![^\s(\u200e\u200f\u2066-\u2069])/[A-Za-z_]\w*"
_KEEP = re.compile(rf"[\u2066-\u2068][^\u2069]*\u2069|{_COMMAND}")
_COMMANDS = re.compile(_COMMAND)
# A line of a right-to-left text that opens with a /command ("/quiz: کوئز شروع کریں") would
# take its direction from the command's first letter, left to right, and sit apart from the
# Urdu lines around it; a RIGHT-TO-LEFT MARK in front keeps it right to left, and the command
# tappable (Telegram finds a command after any character that is not a letter or digit).
RLM = "\u200f"
_LINE_COMMAND = re.compile(r"^(?=/[A-Za-z_])", re.MULTILINE)
_OPEN, _CLOSE = "([{", ")]}"
_START_OK = set("([{\"'−-+±~√$€£#")
_END_OK = set(")]}\"'%°²³′″+*")


def _trim(run: str) -> tuple[int, int]:
    """Bounds of the part of `run` worth isolating: from its first to its last strong
    character, dropping edge brackets and quotes that are not closed inside the run."""
    start, end = 0, len(run)
    while True:
        while start < end and not (run[start].isalnum() or run[start] in _START_OK):
            start += 1
        while end > start and not (run[end - 1].isalnum() or run[end - 1] in _END_OK):
            end -= 1
        if start == end:
            return start, end
        first, last = run[start], run[end - 1]
        if first in _OPEN and _close_of(run, start, end) is None:
            start += 1
        elif last in _CLOSE and _open_of(run, start, end - 1) is None:
            end -= 1
        elif first in "\"'" and run.count(first, start, end) % 2:
            start += 1
        elif last in "\"'" and run.count(last, start, end) % 2:
            end -= 1
        else:
            return start, end


def _close_of(run: str, at: int, end: int) -> int | None:
    depth = 0
    for i in range(at, end):
        if run[i] in _OPEN:
            depth += 1
        elif run[i] in _CLOSE:
            depth -= 1
            if depth == 0:
                return i
    return None


def _open_of(run: str, start: int, at: int) -> int | None:
    depth = 0
    for i in range(at, start - 1, -1):
        if run[i] in _CLOSE:
            depth += 1
        elif run[i] in _OPEN:
            depth -= 1
            if depth == 0:
                return i
    return None


def _unmatched(run: str) -> int | None:
    """Where `run` has its first bracket that is not closed (or opened) inside it."""
    opened: list[int] = []
    for i, ch in enumerate(run):
        if ch in _OPEN:
            opened.append(i)
        elif ch in _CLOSE:
            if not opened:
                return i
            opened.pop()
    return opened[0] if opened else None


def _isolate_run(run: str) -> str:
    """`run` with its part worth isolating isolated; a bracket inside it that is closed or
    opened outside it splits it ("FSDP) (sharding" is two runs, each keeping its own side)."""
    start, end = _trim(run)
    if not any(ch.isalnum() for ch in run[start:end]):
        return run
    cut = _unmatched(run[start:end])
    if cut is not None:
        cut += start
        return f"{_isolate_run(run[:cut])}{run[cut]}{_isolate_run(run[cut + 1:])}"
    return f"{run[:start]}{isolate(run[start:end])}{run[end:]}"


def _isolate_runs(text: str) -> str:
    return _CANDIDATE.sub(lambda match: _isolate_run(match.group(0)), text)


def is_rtl(lang: str) -> bool:
    """True for languages written right to left."""
    return lang in RTL_LANGUAGES


def isolate(text: str) -> str:
    """Wrap one left-to-right fragment in bidi isolates."""
    return f"{LRI}{text}{PDI}"


@functools.lru_cache(maxsize=4096)  # pure; a quiz's texts and the UI's come back every tap
def isolate_latin(text: str) -> str:
    """Isolate every left-to-right run (words, formulas, numbers, URLs) of an RTL text.

    A run reaches from its first to its last letter or digit and takes in the operators,
    brackets, separators and spaces between them, so "(p−1)/(m+p−1)", "3,072", "3/7 ≈ 43%"
    and "(Narayanan et al., 2021)" each stay one piece. Spans already isolated and /commands
    are kept as they are, so isolating twice changes nothing.
    """
    out, done = [], 0
    for keep in _KEEP.finditer(text):
        out += [_isolate_runs(text[done:keep.start()]), keep.group(0)]
        done = keep.end()
    out.append(_isolate_runs(text[done:]))
    return "".join(out)


def isolate_content(text: str) -> str:
    """Quiz text inside a right-to-left language. A text with no right-to-left letters (a
    teacher's quiz written in English only) is left to right as a whole: each line one
    piece, its end punctuation included ("Which gas is released?", never "?Which gas is
    released"). Anything else: `isolate_latin`, run by run."""
    if has_rtl(text) or _KEEP.search(text):
        return isolate_latin(text)
    return "\n".join(isolate(line) if line.strip() else line for line in text.split("\n"))


def isolate_commands(text: str) -> str:
    """Wrap each /command in bidi isolates, for a page where it is read, not tapped (in a
    chat, an isolate would stop the app making it tappable): in a right-to-left line the
    slash then stays in front ("/dashboard", not "dashboard/"). A command already isolated
    with its words ("\u2066/round start\u2069") is kept whole, not isolated again inside."""
    return _KEEP.sub(lambda m: m.group(0) if m.group(0)[0] in _ISOLATES
                     else isolate(m.group(0)), text)


def has_rtl(text: str) -> bool:
    """True when `text` holds right-to-left letters (an Urdu line, an Urdu name)."""
    return re.search(f"[{_RTL}]", text) is not None


# Characters that show nothing: Telegram names made "invisible" are Hangul fillers or Braille
# blanks; spaces, format controls and lone combining marks (Unicode categories) show nothing too.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
BLANK_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me"})
NAMELESS = "👤"  # a member whose name shows nothing (in any language)


def shows_nothing(name: str) -> bool:
    """True when `name` would show as a blank."""
    return all(c in BLANKS or unicodedata.category(c) in BLANK_CATEGORIES for c in name)


def shown_name(name: str, *, whole: bool = False) -> str:
    """A person's name from the platform as every place shows it (a chat's sentence, the
    dashboard's table): without direction controls (an override turns the rest of its line
    around), NAMELESS for a name that is empty or shows nothing ("Got it right: Hana, , "
    read as a slip of the bot), at most NAME_SHOWN characters unless `whole` (the
    dashboard's member table, where a name wraps). The one fallback: never an id, never a
    blank."""
    name = DIRECTION_CONTROLS.sub("", name or "")
    if shows_nothing(name):
        return NAMELESS
    # ten 1,000-character names made /leaderboard unsendable
    if len(name) > NAME_SHOWN and not whole:
        name = name[: NAME_SHOWN - 1].rstrip() + "…"
    return name


def person(lang: str, name: str, inert: Callable[[str], str] | None = None) -> str:
    """A person's name from the platform, for a sentence in `lang`: without direction
    controls (an override in a name turns the rest of its line around) and isolated where
    its direction may differ from the text's: always in a right-to-left text, and in a
    left-to-right one when it holds right-to-left letters (else "Ayesha: 3/4" in Urdu
    letters shows its score before the name); cut and NAMELESS as `shown_name` says.
    `inert`: the platform's way to keep it plain text (`Markup.inert`; Discord's
    `views.member_name`: no channel link, timestamp or URL out of a display name)."""
    name = shown_name(name)
    if inert is not None:
        name = inert(name)
    return isolate(name) if is_rtl(lang) or re.search(f"[{_RTL}]", name) else name


def titled(lang: str, title: str) -> str:
    """A group's or a channel's title for a sentence in `lang`, in its own direction (first
    strong isolate) where that may differ from the text's: always in a right-to-left text,
    and in a left-to-right one when it holds right-to-left letters. Else an emoji or a stop
    at its end lands on the wrong side ("🌍 Berlin Club" for "Berlin Club 🌍" in Urdu)."""
    title = DIRECTION_CONTROLS.sub("", title)
    if is_rtl(lang) or re.search(f"[{_RTL}]", title):
        return f"\u2068{title}{PDI}"
    return title


def strip_isolates(text: str) -> str:
    """Text without bidi isolates (for tests and length budgets)."""
    return text.replace(LRI, "").replace("\u2068", "").replace(PDI, "")


@dataclass(frozen=True, slots=True)
class Plural:
    """A string with plural forms: the gettext entry (context = the key) and its count."""

    count: str  # the parameter whose number picks the form
    singular: str  # the English forms: gettext's msgid and msgid_plural
    plural: str


def _read_plurals(path: Path) -> tuple[Translations, dict[str, Plural]]:
    """One language's .po catalogue as gettext translations, and its entries by key."""
    with path.open("rb") as fh:
        catalog = read_po(fh, locale=path.stem)
    entries: dict[str, Plural] = {}
    for message in catalog:
        if not message.id or not message.context or not isinstance(message.id, tuple):
            continue
        counts = [c.split(":", 1)[1].strip() for c in message.auto_comments
                  if c.startswith("count:")]
        if len(counts) != 1:
            raise ValueError(f"{path}: {message.context} needs one '#. count: <parameter>'")
        entries[message.context] = Plural(counts[0], str(message.id[0]), str(message.id[1]))
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled), entries


class Catalogue:
    """Every UI string in every shipped language; `t` formats one."""

    def __init__(self, strings: Mapping[str, Mapping[str, str]], default: str = "en",
                 plurals: Mapping[str, tuple[Translations, Mapping[str, Plural]]] | None = None,
                 ) -> None:
        if default not in strings:
            raise ValueError(f"default language {default!r} has no catalogue")
        self._strings = strings
        self._plurals = dict(plurals or {})
        self.default = default

    @classmethod
    def load(cls, directory: Path = LOCALES_DIR, default: str = "en") -> Catalogue:
        """Read every <lang>.yaml in `directory`."""
        strings: dict[str, dict[str, str]] = {}
        for path in sorted(directory.glob("*.yaml")):
            with path.open(encoding="utf-8") as fh:
                data = yaml.load(fh, Loader=SAFE_LOADER)
            if not isinstance(data, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in data.items()
            ):
                raise ValueError(f"{path}: expected a mapping of string keys to strings")
            strings[path.stem] = data
        plurals = {path.stem: _read_plurals(path) for path in sorted(directory.glob("*.po"))}
        return cls(strings, default, plurals)

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(sorted(self._strings))

    def keys(self, lang: str) -> frozenset[str]:
        """Every key `lang` translates, plural ones included."""
        return frozenset(self._strings[lang]) | frozenset(self._entries(lang))

    def platform_key(self, lang: str, key: str, *, shared_chats: bool) -> str:
        """`key`, or its `_server` form where chats are not shared (Discord) and one exists:
        what to type differs there (`/round start`, not `/round`)."""
        server = f"{key}_server"
        return server if not shared_chats and server in self.keys(lang) else key

    def language_names(self, lang: str, codes: Iterable[str]) -> str:
        """Languages named in `lang` ("English, Urdu"; a code no catalogue names: as is)."""
        known = self._strings[self.default]
        return ("، " if is_rtl(lang) else ", ").join(
            self._plain(lang, f"language.called_{code}")
            if f"language.called_{code}" in known else code for code in codes)

    def _entries(self, lang: str) -> Mapping[str, Plural]:
        return self._plurals[lang][1] if lang in self._plurals else {}

    def plural(self, lang: str, key: str, n: int) -> str | None:
        """The form of `key` for the number `n` in `lang` (its own rule), None when `key`
        has no plural forms; a language without the entry falls back to the default's."""
        for code in (lang, self.default):
            entry = self._entries(code).get(key)
            if entry is not None:
                translations = self._plurals[code][0]
                return str(translations.npgettext(key, entry.singular, entry.plural, n))
        return None

    def count_of(self, key: str) -> str | None:
        """The parameter whose number picks `key`'s plural form (None: a plain string)."""
        entry = self._entries(self.default).get(key)
        return entry.count if entry else None

    def raw(self, lang: str, key: str) -> str:
        """The unformatted template (for a plural key, its form for 2), falling back to the
        default language."""
        if self.count_of(key) is not None:
            form = self.plural(lang, key, 2)
            assert form is not None
            return form
        return self._plain(lang, key)

    def _plain(self, lang: str, key: str) -> str:
        """A string without plural forms, falling back to the default language."""
        table = self._strings.get(lang, self._strings[self.default])
        return table.get(key) or self._strings[self.default][key]

    def t(self, lang: str, key: str, /, **params: Any) -> str:
        """Format `key` in `lang`; in RTL languages Latin fragments are bidi-isolated."""
        count = self.count_of(key)
        if count is not None:
            template = self.plural(lang, key, plural_n(params[count])) or ""
        else:
            template = self._plain(lang, key)
        if params:  # a localized parameter (a quiz's names) is read in this language
            params = {k: v.get(lang) if isinstance(v, Text) else v for k, v in params.items()}
        text = template.format(**params) if params else template
        return _LINE_COMMAND.sub(RLM, isolate_latin(text)) if is_rtl(lang) else text


def plural_n(value: Any) -> int:
    """The number that picks a plural form: a whole number as it is, a fraction ("1.5", as a
    question of the day's hours are written) 2, the "other" form (CLDR: "one" is 1 with no
    visible fraction, so "1.5 گھنٹے", "1.5 hours")."""
    number = float(value)
    return int(number) if number.is_integer() else 2


def placeholders(template: str) -> frozenset[str]:
    """The {names} a template expects."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)
