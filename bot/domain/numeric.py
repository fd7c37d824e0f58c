"""Typed numbers: what a learner types for a computed question, read in the question's unit.

A question declares its unit (`unit:` in the quiz file, else read from its option template:
"{value:.1%}" is a fraction shown as a percentage, "{value} GB" gigabytes, "m = {value:d}" a
plain count). A typed answer may carry its own unit of the same family and is converted:
"1200 MB" for a GB question is 1.2. Accepted besides: `.` or `,` as the decimal mark with
thousands separators (a single `,` before exactly three digits groups thousands: "1,200"),
Urdu and Arabic-Indic digits, time in any of ns, µs, ms, s, min, h ("120 s" for an answer in
min is 2), a unit written in Urdu ("۲۰ فیصد", "66 ملی سیکنڈ", "3.5 جی بی",
"2 لاکھ"), a sign, exponents ("1e9", "1.2×10^9", "1.2·10⁹"), powers ("2^30", "2**30",
"2³⁰" as sizes are written), a unit word ("seconds", "percent"), a leading "~" or "m =".

A unit the options show that is no family's ("680 nm", an imported question's) is its own
word: typed after the number as it is, or with another SI prefix and converted ("0.68 µm",
"0.68 um", "680000 pm"; `SI_PREFIXES`). A unit of another kind ("680 ms" for a length, "12
ms" for a size) is refused naming the unit expected.

Bytes: KB, MB, GB, TB are decimal (1 GB = 1000 MB, as the quizzes compute them) and KiB,
MiB, GiB, TiB binary. A size typed with another decimal prefix than the question's is also
read as converted by 1024s ("2048 MB" for an answer of 2 GB is right), since learners and
tools use both conventions for the same names; an IEC unit is exact ("2 GiB" is 2.147 GB).
Pure functions, no I/O.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from bot.domain.letters import urdu_letters

GROUP_FROM = 5  # digits in a whole part before it is grouped: "4096", "1822" but "65,536"
TYPED_OTHER = -1  # the `chosen` stored for a typed number that matches no option
MAX_TYPED = 40  # characters read of a typed answer; longer is refused, not guessed at

# family -> unit (lower case) -> its size in the family's base unit
FAMILIES: dict[str, dict[str, float]] = {
    "bytes": {"b": 1.0, "byte": 1.0, "bytes": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9,
              "tb": 1e12, "kib": 2.0**10, "mib": 2.0**20, "gib": 2.0**30, "tib": 2.0**40},
    "time": {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0,
             "sec": 1.0, "nsec": 1e-9, "usec": 1e-6, "msec": 1e-3, "secs": 1.0,
             "second": 1.0, "seconds": 1.0, "min": 60.0, "mins": 60.0, "minute": 60.0,
             "minutes": 60.0, "h": 3600.0, "hr": 3600.0, "hrs": 3600.0, "hour": 3600.0,
             "hours": 3600.0},
    "count": {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "bn": 1e9, "t": 1e12,
              "lakh": 1e5, "crore": 1e7},
    "percent": {"%": 0.01, "percent": 0.01, "pct": 0.01},
}
# decimal byte units and their power of 1000 (then also read by 1024s; see the docstring)
_DECIMAL_BYTES = {"kb": 1, "mb": 2, "gb": 3, "tb": 4}
# SI prefixes of a unit the options show that no family holds ("nm"): case matters (m milli,
# M mega; p pico, P peta) except for letters no other prefix shares (`_CASELESS`); "u" is µ
# as a keyboard without µ types it
SI_PREFIXES = {"p": 1e-12, "n": 1e-9, "µ": 1e-6, "μ": 1e-6, "u": 1e-6, "m": 1e-3,
               "c": 1e-2, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_CASELESS = {"K": "k", "N": "n", "U": "u", "g": "G", "t": "T"}
# units an SI prefix goes before, as options show them
SI_BASES = ("m", "g", "s", "Hz", "W", "Wh", "J", "V", "A", "Pa", "N", "L", "eV", "FLOP",
            "FLOPS", "flop", "flops", "bit", "bps")
# a question's declared unit -> (family, size of one answer unit in the family's base)
QUESTION_UNITS: dict[str, tuple[str, float]] = {
    **{u: ("bytes", s) for u, s in FAMILIES["bytes"].items() if u not in ("byte", "bytes")},
    **{u: ("time", s) for u, s in FAMILIES["time"].items()},
    "": ("count", 1.0),
    "%": ("percent", 1.0),  # the answer is a fraction (0.12) shown as 12%
    "percent": ("percent", 0.01),  # the answer is in percentage points (12 means 12%)
}
# what a typed answer could look like, per family, in order of preference: the first that is
# no option of the question is shown ("Or type the number, e.g. 12.5%" beside an option
# 12.5% reads as a hint); bytes and time carry the question's own unit
EXAMPLES = {"bytes": ("1.2", "3.7", "45"), "time": ("1.2", "3.7", "45"),
            "count": ("24", "37", "450"), "percent": ("12.5%", "37.5%", "4.5%")}
LOOKALIKE = 0.1  # relative: an example this close to an option's value reads as that option

# direction marks and zero-width characters an Urdu keyboard or a copy from an RTL line
# leaves around digits: not part of the number
_INVISIBLE = ("\u200b\u200c\u200d\u200e\u200f\u061c\u2066\u2067\u2068\u2069\u202a"
              "\u202b\u202c\u202d\u202e\ufeff")
_MAP: dict[str, str | None] = {
    **{chr(0x0660 + i): str(i) for i in range(10)},  # ٠-٩
    **{chr(0x06F0 + i): str(i) for i in range(10)},  # ۰-۹
    "\u066b": ".", "\u066c": ",", "\u066a": "%", "\u2212": "-", "\u2013": "-",
    "\u00d7": "x", "\u00b7": "x", "\u22c5": "x", "*": "x", "\u00a0": " ", "\u202f": " ",
    "\u2009": " ", "'": " ", "\u2019": " ", "\u060c": ",",
    **dict.fromkeys(_INVISIBLE, None)}
_DIGITS = str.maketrans(_MAP)
# A unit an Urdu learner writes in Urdu after the number, as the Urdu texts write it ("20
# فیصد", "175 ارب"), and the unit it is: "20 فیصد" was "not a number". Words of the South
# Asian count (لاکھ 10⁵, کروڑ 10⁷, ارب 10⁹) keep their own sizes; an Arabic keyboard's ي, ى,
# ك and ه are read as Urdu's ی, ک and ہ (`letters.urdu_letters`).
URDU_UNITS = {
    "فیصد": "%", "فی صد": "%",
    "سیکنڈ": "s", "سیکنڈز": "s", "ملی سیکنڈ": "ms", "ملی سیکنڈز": "ms",
    "منٹ": "min", "منٹس": "min", "گھنٹہ": "h", "گھنٹے": "h", "گھنٹوں": "h",
    "مائیکرو سیکنڈ": "us", "مائیکرو سیکنڈز": "us", "نینو سیکنڈ": "ns", "نینو سیکنڈز": "ns",
    "بائٹ": "bytes", "بائٹس": "bytes", "کلو بائٹ": "kb", "کلو بائٹس": "kb",
    "میگا بائٹ": "mb", "میگا بائٹس": "mb", "گیگا بائٹ": "gb", "گیگا بائٹس": "gb",
    "ٹیرا بائٹ": "tb", "ٹیرا بائٹس": "tb",
    "کے بی": "kb", "ایم بی": "mb", "جی بی": "gb", "ٹی بی": "tb",
    "ہزار": "k", "لاکھ": "lakh", "کروڑ": "crore", "ملین": "m", "ارب": "bn", "بلین": "bn",
    "ٹریلین": "t",
}
_URDU_UNIT = re.compile(
    r"\s*(?P<word>" + "|".join(re.escape(w).replace(r"\ ", r"\s*")
                               for w in sorted(URDU_UNITS, key=len, reverse=True))
    + r")\s*[۔.]?$")
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPER_RUN = re.compile(r"(?<=\d)([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")  # "10⁹", "2³⁰": a power
_NUMBER = re.compile(
    r"(?:[a-z_]\w{0,9}\s*=\s*)?[~≈]?\s*(?P<sign>[+-])?\s*"
    r"(?P<num>\d[\d., ]*|[.,]\d+)"
    r"\s*(?:e(?P<exp>[+-]?\d{1,3})|x\s*10\s*(?:\^|xx)\s*(?P<exp2>[+-]?\d{1,3})"
    r"|(?:\^|xx)\s*(?P<power>[+-]?\d{1,3}))?"
    r"\s*(?P<unit>[a-zµμ%]{0,7})\.?", re.IGNORECASE)


class TypedError(ValueError):
    """A typed answer that cannot be read: `key` names the locale string, `fields` its fields."""

    def __init__(self, key: str, **args: str) -> None:
        super().__init__(key)
        self.key, self.fields = key, args


@dataclass(frozen=True, slots=True)
class Reading:
    """A typed answer in the question's unit: `values` are its readings, the likeliest first
    (a bare "0.12" for a percentage question is 0.12% or the fraction 0.12)."""

    values: tuple[float, ...]
    shown: str  # the input as cleaned for echoing back ("1.2 GB")
    # "4.096" (one dot, three digits after): the first value had the dot grouped thousands,
    # and that number as it would be typed ("4096"); a dot is read as the decimal point
    # always, this only lets the caller ask (`thousands_dot`)
    dotted: tuple[float, str] | None = None


def unit_of_option(source: str) -> str:
    """The unit an option template shows: "%" for "{value:.1%}", "GB" for "{value} GB",
    "" (a plain number) otherwise."""
    if re.search(r"%\s*}", source):
        return "%"
    tail = source[source.rfind("}") + 1:].strip().split()
    word = tail[0].rstrip(".,;") if tail else ""
    return word if word.lower() in QUESTION_UNITS and word else ""


def own_word(source: str, text: str) -> str:
    """`text` without the unit word an option template shows after its number when typed
    numbers do not read that unit ("689 nm" for "{value} nm" is "689"): the learner typed
    what the options show."""
    word = option_word(source)
    if not word:
        return text
    cut = re.sub(rf"\s*{re.escape(word)}\.?\s*$", "", text.strip(), flags=re.IGNORECASE)
    return cut if cut and cut != text.strip() else text


def option_word(source: str) -> str:
    """The word an option template shows after its number that is no unit a question may
    declare ("nm" for "{value} nm"), else ""."""
    tail = source[source.rfind("}") + 1:].strip().split()
    word = tail[0].rstrip(".,;") if tail else ""
    return "" if not word or word.lower() in QUESTION_UNITS or "{" in word else word


def si_scale(typed: str, word: str) -> float | None:
    """How many `word`s one `typed` is when both are one SI unit with prefixes ("µm" is
    0.001 "nm"), else None."""
    for base in sorted(SI_BASES, key=len, reverse=True):
        if not (word.endswith(base) and typed.lower().endswith(base.lower())):
            continue
        have = _prefix(word[:-len(base)])
        got = _prefix(typed[:-len(base)])
        if have is not None and got is not None:
            return got / have
    return None


def _prefix(text: str) -> float | None:
    if text in SI_PREFIXES:
        return SI_PREFIXES[text]
    return SI_PREFIXES[_CASELESS[text]] if text in _CASELESS else None


def known_unit(unit: str) -> bool:
    """Whether a question may declare this unit."""
    return unit.lower() in QUESTION_UNITS or unit in QUESTION_UNITS


def example(unit: str, avoid: Iterable[float] = (), word: str = "") -> str:
    """A typed answer the learner could send for a question in `unit` ("1.2 GB"; with the
    options' own `word`, "24 nm"), none of the values in `avoid` (the question's options, in
    its unit) nor close to one."""
    family, size = QUESTION_UNITS[_key(unit)]
    shown = [f"{c} {unit}" if family in ("bytes", "time") else f"{c} {word}".strip()
             for c in EXAMPLES[family]]
    taken = [float(v) for v in avoid]
    for text in shown:
        value = float(text.rstrip("%").split()[0]) / (100 * size if family == "percent" else 1)
        if not any(close(value, v, LOOKALIKE) for v in taken):
            return text
    return shown[0]  # an option near each of them: the likeliest answers are far apart


def parse(text: str, unit: str, avoid: Iterable[float] = (), word: str = "") -> Reading:
    """`text` read as a number in `unit` (or in the options' own `word`, "nm": see the module
    docstring); TypedError (too_long, not_number, wrong_unit, wrong_unit_plain,
    wrong_unit_percent), whose
    example is none of the values in `avoid` (see `example`)."""
    family, size = QUESTION_UNITS[_key(unit)]
    avoid = tuple(avoid)
    raw = text.strip()
    if len(raw) > MAX_TYPED:
        raise TypedError("typed.too_long", limit=str(MAX_TYPED))
    clean = _SUPER_RUN.sub(lambda m: "^" + m.group(1).translate(_SUPER), raw)
    clean = unicodedata.normalize("NFKC", clean.translate(_DIGITS)).strip()
    echo, said = clean, ""
    if urdu := _URDU_UNIT.search(urdu_letters(clean)):
        said = clean[urdu.start("word"):urdu.end("word")]
        word = " ".join(urdu.group("word").split())
        clean = f"{clean[:urdu.start()]} {URDU_UNITS[word]}"
    m = _NUMBER.fullmatch(clean.strip())
    if m is None or not any(ch.isdigit() for ch in m.group("num")):
        raise TypedError("typed.not_number", example=example(unit, avoid, word))
    read = _number(m.group("num"))
    if read is None:
        raise TypedError("typed.not_number", example=example(unit, avoid, word))
    number, decimal = read
    exp = m.group("exp") or m.group("exp2")
    value = float(f"{number}e{int(exp)}" if exp else number)
    if m.group("power"):  # "2^30", "2**30", "2³⁰"
        try:
            value = value ** int(m.group("power"))
        except (OverflowError, ZeroDivisionError):
            value = math.inf
    if not math.isfinite(value):  # "1e999": no answer is that big
        raise TypedError("typed.not_number", example=example(unit, avoid, word))
    if m.group("sign") == "-":
        value = -value
    typed_unit = m.group("unit").lower()
    scales = FAMILIES[family]
    scale = si_scale(m.group("unit"), word) if word and typed_unit else None
    if word and typed_unit == word.lower():
        base = [value * size]
    elif scale is not None:  # "0.68 µm" for options in nm
        base = [value * scale * size]
    elif typed_unit in scales:
        base = [value * scales[typed_unit]]
        if family == "bytes" and typed_unit in _DECIMAL_BYTES and _key(unit) in _DECIMAL_BYTES:
            steps = _DECIMAL_BYTES[typed_unit] - _DECIMAL_BYTES[_key(unit)]
            base.append(value * size * 1024.0 ** steps)  # "2048 MB" for 2 GB, by 1024s
    elif typed_unit == "" and family == "percent":
        base = [value * 0.01] + ([value] if decimal and abs(value) <= 1 else [])
    elif typed_unit == "":
        base = [value * size]
    elif word or any(typed_unit in units for units in FAMILIES.values()):
        raise _wrong_unit(said or m.group("unit"), unit, avoid, word)
    else:
        raise TypedError("typed.not_number", example=example(unit, avoid, word))
    shown = " ".join(echo.split())
    values = tuple(dict.fromkeys(v / size for v in base))
    dotted = None
    if re.fullmatch(r"\d{1,3}\.\d{3}", m.group("num").strip()) and not (exp or m.group("power")):
        meant = m.group("num").strip().replace(".", "")
        dotted = (values[0] * 1000, f"{m.group('sign') or ''}{meant} {said or m.group('unit')}"
                  .strip())
    return Reading(values, shown, dotted)


def thousands_dot(reading: Reading, values: tuple[float, ...] | list[float], tolerance: float,
                  absolute: float | None = None) -> TypedError | None:
    """The hint for "4.096" typed where 4096 is one of the options (the answer or a named
    mistake: all are on screen, so the hint tells nothing the buttons do not) while 4.096 is
    none: "did you mean 4096? write it without the dot"; else None. A dot is the decimal
    point always: the hint judges nothing, the learner types again."""
    if reading.dotted is None or match(reading, values, tolerance, absolute) is not None:
        return None
    value, meant = reading.dotted
    if match(Reading((value,), meant), values, tolerance, absolute) is None:
        return None
    return TypedError("typed.thousands_dot", typed=reading.shown, meant=meant)


def _wrong_unit(got: str, unit: str, avoid: tuple[float, ...], word: str) -> TypedError:
    """The refusal of a unit of another kind, naming the unit the answer is in (a plain
    number and a percentage have their own keys: "the answer is in %" reads as a typo)."""
    family, _size = QUESTION_UNITS[_key(unit)]
    if family == "percent" or not (word or unit):
        key = "typed.wrong_unit_percent" if family == "percent" else "typed.wrong_unit_plain"
        return TypedError(key, got=got, example=example(unit, avoid))
    expected = word or unit
    return TypedError("typed.wrong_unit", got=got, unit=expected,
                      example=example(unit, avoid, word))


def shown(value: float, unit: str, word: str = "") -> str:
    """A stored typed value as the learner reads it, numbers written as the options write
    them: "1.2 GB", "1,200,000 MB" (not "1.2e+06 MB"), "12.5%", "24", with the options' own
    `word` "680 nm"."""
    family, size = QUESTION_UNITS[_key(unit)]
    if family == "percent":
        return f"{_digits(value * size * 100)}%"
    return f"{_digits(value)} {unit or word}".strip()


def grouped(text: str) -> str:
    """A number written with Latin digits ("-65536.5") with its whole part grouped in
    thousands by commas from GROUP_FROM digits on, as SI/ISO 80000 and most style guides do:
    "4096" and a year "1822" read plainly, "65,536" grouped. Every number a learner is shown
    is written through here (quiz templates, the echo of a typed answer), in every language
    (Urdu texts write Latin digits too). Typed answers are read either way ("1,822", "1822")."""
    sign, rest = (text[0], text[1:]) if text[:1] in "+-" else ("", text)
    whole, dot, part = rest.partition(".")
    if len(whole) >= GROUP_FROM and whole.isdigit():
        whole = f"{int(whole):,}"
    return sign + whole + dot + part


def _digits(value: float) -> str:
    """Six significant digits, grouped (`grouped`); an exponent only outside 1e-4 to 1e15."""
    if value == 0 or not 1e-4 <= abs(value) < 1e15:
        return f"{value:.6g}"
    text = f"{value:.{max(0, 5 - math.floor(math.log10(abs(value))))}f}"
    return grouped(text.rstrip("0").rstrip(".") if "." in text else text)


def close(value: float, target: float, tolerance: float,
          absolute: float | None = None) -> bool:
    """Whether `value` is within `tolerance` (relative) of `target`, or within `absolute`
    (in the answer's unit) when that is given."""
    slack = 1 + 1e-9  # 1.02 against 1.0 at 2 % is in, whatever the float rounding
    if absolute is not None:  # 3.6 against 3.5 +- 0.1 is in, whatever the float rounding
        return abs(value - target) <= absolute * slack + 1e-12 * max(1.0, abs(target))
    if target == 0:
        return abs(value) <= tolerance * slack
    return abs(value - target) <= tolerance * abs(target) * slack


def match(reading: Reading, values: tuple[float, ...] | list[float],
          tolerance: float, absolute: float | None = None) -> int | None:
    """The index of the first of `values` (the answer first, then the named mistakes) a
    reading falls within `tolerance` (or `absolute`) of, trying the reading's values in
    order; else None."""
    for v in reading.values:
        for k, target in enumerate(values):
            if close(v, float(target), tolerance, absolute):
                return k
    return None


def _key(unit: str) -> str:
    return unit if unit in QUESTION_UNITS else unit.lower()


def _number(digits: str) -> tuple[str, bool] | None:
    """The digits as Python reads them and whether they had a decimal part; None when the
    separators make no number ("1.2.3,4")."""
    groups = digits.strip().split()
    for k, group in enumerate(groups[1:], 1):  # "1 200 000": space-grouped thousands only
        whole = re.split(r"[.,]", group)[0]
        if len(whole) != 3 or (k < len(groups) - 1 and whole != group):
            return None
    s = "".join(groups)
    if "." in s and "," in s:
        mark = "." if s.rfind(".") > s.rfind(",") else ","
        s = s.replace("," if mark == "." else ".", "").replace(mark, ".")
    elif s.count(",") > 1 or s.count(".") > 1:
        s = s.replace(",", "").replace(".", "")
    elif "," in s:
        whole, _, part = s.partition(",")
        thousands = len(part) == 3 and whole not in ("", "0")
        s = whole + part if thousands else f"{whole or '0'}.{part}"
    if not re.fullmatch(r"\d*\.?\d+|\d+\.", s):
        return None
    return s, "." in s
