"""What every import format reads into: questions as plain text with their options'
fractions and feedback, before they become our YAML (`bot.domain.quiz.formats.to_yaml`).

The rules every format shares live here once: which option is the key (exactly one worth
100%), how a question name becomes a stable id, and how HTML text becomes plain text.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

MAX_SOURCE_BYTES = 20 * 1024 * 1024  # a Moodle XML with pictures; the chat upload takes 512 kB
ID_LENGTH = 40  # as bot.domain.quiz.validate.ID_RE
# A true/false question becomes two options, named in the quiz's language
TRUE_FALSE = {"en": ("True", "False"), "ur": ("درست", "غلط")}
NAME_SHOWN = 40  # characters of a skipped question's name (or text) its message shows


class ImportRefused(ValueError):
    """A file that cannot be read at all: one line per problem, with its position."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(slots=True)
class DraftOption:
    text: str
    feedback: str = ""
    fraction: float = 0.0  # percent, as Moodle gives it: 100 for the key


@dataclass(slots=True)
class DraftQuestion:
    where: str  # "file:line" or "file: question 3", for every message about it
    name: str  # the source's own name for it (GIFT ::title::, XML <name>), or ""
    text: str
    options: list[DraftOption] = field(default_factory=list)
    general: str = ""  # general feedback -> explanation
    category: str = ""
    image: tuple[str, bytes] | None = None  # (name in the source, bytes)
    # A computed question, already in our YAML's shape (params, answer, mistakes ...)
    computed: dict[str, Any] | None = None


@dataclass(slots=True)
class Draft:
    """One file read: its questions, and what could not be taken, each with its position."""

    source: str
    questions: list[DraftQuestion] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # refuse the file
    warnings: list[str] = field(default_factory=list)  # kept going, but say so
    skipped: list[str] = field(default_factory=list)  # unsupported questions, one line each
    title: str = ""

    def skip(self, where: str, kind: str, why: str = "", *, name: str = "") -> None:
        """An unsupported question: named with its position and its name (the source's
        title, else the start of its text), never silently dropped."""
        article = "an" if kind[:1] in "aeiou" else "a"
        shown = " ".join(name.split())
        shown = shown if len(shown) <= NAME_SHOWN else shown[:NAME_SHOWN - 1].rstrip() + "…"
        named = f" '{shown}'" if shown else ""
        self.skipped.append(f"{where}: skipped {article} {kind} question{named}"
                            f"{f' ({why})' if why else ''}"
                            "; only multiple choice, true/false, computed and typed-number "
                            "questions are imported")


def key_index(question: DraftQuestion, draft: Draft) -> int | None:
    """The one option worth 100%; a problem (no key, or two) otherwise. Partial credit is
    not kept (a learner picks one option): said once per question."""
    keys = [i for i, o in enumerate(question.options) if abs(o.fraction - 100) < 1e-6]
    if not keys:
        draft.problems.append(f"{question.where}: no option is the right answer (worth "
                              "100%); mark exactly one")
        return None
    if len(keys) > 1:
        draft.problems.append(f"{question.where}: {len(keys)} options are worth 100%; a "
                              "question here has exactly one right answer")
        return None
    partial = [o.fraction for o in question.options if 0 < o.fraction < 100]
    if partial:
        shown = ", ".join(f"{f:g}%" for f in partial)
        draft.warnings.append(f"{question.where}: partial credit ({shown}) is not kept: only "
                              "the 100% option counts as right")
    return keys[0]


def written_in(draft: Draft) -> str:
    """The language a file's questions are written in, for a file whose sender did not say
    (a chat upload, `quizbot quizzes add`): "ur" when most of their letters are in the
    Arabic script Urdu is written in (English terms such as GPU among them), else "en"."""
    ours = set(TRUE_FALSE["en"])  # true/false options are named by us, not the teacher
    texts = [t for q in draft.questions for t in (q.text, *(o.text for o in q.options))
             if t not in ours]
    letters = [c for c in "".join(texts) if c.isalpha()]
    arabic = sum(1 for c in letters if "\u0600" <= c <= "\u06ff" or "\u0750" <= c <= "\u077f"
                 or "\ufb50" <= c <= "\ufdff" or "\ufe70" <= c <= "\ufeff")
    return "ur" if letters and arabic * 2 > len(letters) else "en"


def category_name(raw: str) -> str:
    """A Moodle category path without its context prefix ("$course$/top/Week 1" ->
    "Week 1")."""
    parts = [p.strip() for p in raw.strip().split("/") if p.strip()]
    while parts and (parts[0].startswith("$") or parts[0].lower() == "top"):
        parts.pop(0)
    return "/".join(parts)


def slug(text: str, length: int = ID_LENGTH) -> str:
    """A kebab-case id from a name ("Week 1: Pipes!" -> "week-1-pipes"), or "" when no
    Latin letter or digit is left."""
    ascii_ = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    out = re.sub(r"[^a-z0-9]+", "-", ascii_.lower()).strip("-")
    return out[:length].rstrip("-")


def stable_id(name: str, stem: str, taken: set[str], kind: str = "q") -> str:
    """A question id (or, with `kind`, a topic's) that survives a re-import: from its name,
    else `kind` and a hash of its text; made unique within the quiz by a suffix in file
    order."""
    base = slug(name, ID_LENGTH - 4)
    if not base:
        digest = hashlib.sha256(" ".join(stem.split()).encode()).hexdigest()[:10]
        base = f"{kind}-{digest}"
    qid, n = base, 2
    while qid in taken:
        qid, n = f"{base}-{n}", n + 1
    taken.add(qid)
    return qid


class _Text(HTMLParser):
    BREAKS = frozenset({"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6",
                        "pre", "blockquote"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.images: list[str] = []
        self.pre = 0  # inside <pre>, where a line break in the source is one

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.pre += tag == "pre"
        if tag in self.BREAKS:
            self.out.append("\n")
        if tag == "li":
            self.out.append("• ")
        if tag == "img":
            self.images.append(dict(attrs).get("src") or "")

    def handle_endtag(self, tag: str) -> None:
        self.pre -= tag == "pre" and self.pre > 0
        if tag in self.BREAKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        # a line break in HTML source is a space (an editor's wrapping), not a new line
        self.out.append(data if self.pre else data.replace("\r", " ").replace("\n", " "))


def html_text(source: str) -> tuple[str, list[str]]:
    """Plain text of an HTML fragment (paragraphs and line breaks kept as lines), and the
    `src` of each picture in it."""
    parser = _Text()
    parser.feed(source)
    parser.close()
    return tidy("".join(parser.out)), parser.images


def tidy(text: str) -> str:
    """Spaces collapsed within lines, at most one empty line in a row, ends trimmed."""
    lines = [" ".join(line.split()) for line in html.unescape(text).replace("\xa0", " ")
             .splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decode(data: bytes, source: str) -> str:
    """UTF-8 text (a BOM allowed), or UTF-16 that starts with its BOM (Excel's "Unicode
    Text", how Excel long saved a sheet in Urdu); anything else is refused in one line."""
    if data.startswith(b"PK\x03\x04"):
        raise ImportRefused([f"{source}: is a zip archive; export the questions as one GIFT, "
                             "Moodle XML, Aiken or CSV file"])
    if data.startswith(UTF16_BOMS):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ImportRefused([f"{source}: is not valid UTF-16 (byte {exc.start + 1}); "
                                 "save the file as CSV UTF-8 and import it again"]) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ImportRefused([f"{source}:{line}: is not UTF-8 (byte {exc.start + 1}); save "
                             "the file as UTF-8 and import it again"]) from None
