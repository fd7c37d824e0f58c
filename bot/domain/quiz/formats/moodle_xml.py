"""Moodle XML (https://docs.moodle.org/en/Moodle_XML_format).

Parsed with `defusedxml` (entity declarations, so the "billion laughs" bomb, and external
entities/DTDs, so XXE, are refused by a maintained library rather than by hand-written
guards) through SAX, which gives each element its line; the tree is bounded in depth and
in size. Read as the specification gives it: `<question type="category">` (-> the
category of what follows), `multichoice` (single answer) and `truefalse` questions with
`<name>`, `<questiontext format="html|markdown|plain_text|moodle_auto_format">`,
`<generalfeedback>`, `<answer fraction="100">` with `<feedback>`, CDATA sections, and
pictures as `<file name="..." encoding="base64">`; `calculated` and `calculatedmulti` go
to `bot.domain.quiz.formats.calculated`. Every other type is listed as skipped.
"""

from __future__ import annotations

import base64
import binascii
import html
import xml.etree.ElementTree as ET  # writing only: reading goes through defusedxml
import xml.sax
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.xmlreader import Locator

from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden

from bot.domain.quiz.formats import calculated, numerical
from bot.domain.quiz.formats.calculated import Calculated
from bot.domain.quiz.formats.draft import (
    TRUE_FALSE,
    Draft,
    DraftOption,
    DraftQuestion,
    ImportRefused,
    category_name,
    html_text,
    tidy,
)
from bot.domain.quiz.formats.export import Plain, Prepared, Typed
from bot.domain.quiz.images import MAX_IMAGE_BYTES, ImageRefused, read_image

MAX_DEPTH = 32  # Moodle's own files nest 6 deep
MAX_ELEMENTS = 200_000
CHOICE_TYPES = ("multichoice", "truefalse")
COMPUTED_TYPES = ("calculated", "calculatedmulti")


@dataclass(slots=True)
class Node:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Node] = field(default_factory=list)
    chunks: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    def find(self, tag: str) -> Node | None:
        return next((c for c in self.children if c.tag == tag), None)

    def all(self, tag: str) -> list[Node]:
        return [c for c in self.children if c.tag == tag]

    def value(self, *path: str) -> str:
        """The text at `path` below this node ("" when absent)."""
        node: Node | None = self
        for tag in path:
            node = node.find(tag) if node else None
        return node.text if node else ""


class _Builder(xml.sax.ContentHandler):
    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source
        self.stack: list[Node] = []
        self.root: Node | None = None
        self.count = 0
        self.locator: Locator | None = None

    def setDocumentLocator(self, locator: Locator) -> None:
        self.locator = locator

    def _line(self) -> int:
        return (self.locator.getLineNumber() or 0) if self.locator else 0

    def startElement(self, name: str, attrs: xml.sax.xmlreader.AttributesImpl) -> None:
        self.count += 1
        if len(self.stack) >= MAX_DEPTH or self.count > MAX_ELEMENTS:
            at = f"{self.source}:{self._line()}"
            if len(self.stack) >= MAX_DEPTH:
                raise ImportRefused([f"{at}: nests deeper than {MAX_DEPTH} elements; not a "
                                     "Moodle export"])
            raise ImportRefused([f"{at}: has more than {MAX_ELEMENTS:,} elements; not a Moodle "
                                 "export"])
        node = Node(name, dict(attrs), self._line())
        if self.stack:
            self.stack[-1].children.append(node)
        else:
            self.root = node
        self.stack.append(node)

    def endElement(self, name: str) -> None:
        self.stack.pop()

    def characters(self, content: str) -> None:
        if self.stack:
            self.stack[-1].chunks.append(content)


def parse(data: bytes, source: str) -> Node:
    """The document's tree; ImportRefused for malformed XML, entities, DTDs or a tree too
    deep or too large."""
    import defusedxml.sax  # its expat reader pulls in urllib.request: loaded on first import

    builder = _Builder(source)
    try:
        defusedxml.sax.parseString(data, builder, forbid_dtd=False, forbid_entities=True,
                                   forbid_external=True)
    except EntitiesForbidden as exc:
        raise ImportRefused([f"{source}: declares the XML entity {exc.name!r}; entities are "
                             "refused (entity bombs, external files)"]) from None
    except DTDForbidden:
        raise ImportRefused([f"{source}: has a DTD; Moodle XML needs none"]) from None
    except DefusedXmlException as exc:
        raise ImportRefused([f"{source}: refers to an external resource ({exc}); refused"]
                            ) from None
    except xml.sax.SAXParseException as exc:
        raise ImportRefused([f"{source}:{exc.getLineNumber()}: is not well-formed XML: "
                             f"{exc.getMessage()}"]) from None
    if builder.root is None or builder.root.tag != "quiz":
        raise ImportRefused([f"{source}:1: is not Moodle XML (the root must be <quiz>)"])
    return builder.root


def read(data: bytes, source: str, lang: str = "en") -> Draft:
    """Every question of a Moodle XML file."""
    root = parse(data, source)
    draft = Draft(source)
    category = ""
    for node in root.all("question"):
        kind = node.attrs.get("type", "")
        where = f"{source}:{node.line}"
        if kind == "category":
            category = category_name(tidy(node.value("category", "text")))
            draft.title = draft.title or category.rsplit("/", 1)[-1]
            continue
        q = DraftQuestion(where, tidy(node.value("name", "text")), "", category=category)
        q.text = rich(node.find("questiontext"), q, draft)
        q.general = rich(node.find("generalfeedback"), q, draft)
        if kind == "numerical":
            _numerical(node, q, draft)
        elif kind not in CHOICE_TYPES + COMPUTED_TYPES:
            draft.skip(where, kind or "untyped", name=q.name or q.text)
        elif kind == "multichoice" and node.value("single").strip().lower() in ("false", "0"):
            draft.skip(where, "multiple-answer", "<single>false</single>",
                       name=q.name or q.text)
        else:
            q.options = [_option(answer, q, draft, kind, lang) for answer in node.all("answer")]
            hints = [h for h in node.all("hint") if tidy(h.value("text"))]
            if hints:
                draft.warnings.append(f"{where}: {len(hints)} hint(s) left out: a question "
                                      "here has none; put what they say in the explanation")
            if kind in COMPUTED_TYPES:
                calculated.read(node, q, draft)
            else:
                draft.questions.append(q)
    return draft


def _numerical(node: Node, q: DraftQuestion, draft: Draft) -> None:
    """A `numerical` question: each answer's number, absolute tolerance, fraction and
    feedback, and its unit (the one of multiplier 1; `bot.domain.quiz.formats.numerical`)."""
    answers = []
    for answer in node.all("answer"):
        try:
            fraction = float(answer.attrs.get("fraction", "0"))
        except ValueError:
            fraction = 0.0
        answers.append(numerical.NumberAnswer(
            tidy(answer.value("text")), tidy(answer.value("tolerance")), fraction,
            rich(answer.find("feedback"), q, draft)))
    units = node.find("units")
    unit = next((tidy(u.value("unit_name")) for u in (units.all("unit") if units else [])
                 if numerical.number(u.value("multiplier")) == 1), "")
    numerical.convert(q, answers, draft, "numerical", unit)


def _option(answer: Node, q: DraftQuestion, draft: Draft, kind: str, lang: str,
            ) -> DraftOption:
    try:
        fraction = float(answer.attrs.get("fraction", "0"))
    except ValueError:
        draft.problems.append(f"{draft.source}:{answer.line}: fraction "
                              f"{answer.attrs.get('fraction')!r} is not a number")
        fraction = 0.0
    text, pictures = html_text(answer.value("text"))
    if pictures and not text:  # an option that is only a picture: said, not "empty"
        draft.problems.append(f"{draft.source}:{answer.line}: an option is only a picture "
                              "and options here are text; describe it in words (a picture "
                              "may go in the question text)")
        return DraftOption("", "", fraction)
    text = rich(answer, q, draft)
    if kind == "truefalse" and text.lower() in ("true", "false"):
        yes, no = TRUE_FALSE.get(lang, TRUE_FALSE["en"])
        text = yes if text.lower() == "true" else no
    return DraftOption(text, rich(answer.find("feedback"), q, draft), fraction)


def rich(node: Node | None, q: DraftQuestion, draft: Draft) -> str:
    """A text element's plain text (HTML made plain), its pictures taken on the way."""
    if node is None:
        return ""
    raw = node.value("text")
    if node.attrs.get("format", "html") in ("html", "moodle_auto_format"):
        text, images = html_text(raw)
    else:
        text, images = tidy(raw), []
    for file in node.all("file"):
        _picture(file, q, draft)
    if images and not node.all("file"):
        draft.warnings.append(f"{draft.source}:{node.line}: a picture in the text is not in "
                              "the file (no <file> element); it is left out")
    return text


def _picture(file: Node, q: DraftQuestion, draft: Draft) -> None:
    where = f"{draft.source}:{file.line}"
    name = file.attrs.get("name", "picture")
    if file.attrs.get("encoding", "base64") != "base64":
        draft.problems.append(f"{where}: picture {name!r} is not base64-encoded")
        return
    packed = "".join(file.text.split())
    if len(packed) > (MAX_IMAGE_BYTES + 2) // 3 * 4:  # checked before decoding anything
        draft.problems.append(f"{where}: picture {name!r} is over "
                              f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB, the most a picture "
                              "may be")
        return
    try:
        data = base64.b64decode(packed, validate=True)
    except (binascii.Error, ValueError):
        draft.problems.append(f"{where}: picture {name!r} is not valid base64")
        return
    if q.image is not None:
        draft.warnings.append(f"{where}: picture {name!r} left out: a question here shows "
                              "one picture")
        return
    q.image = (name, data)


# --- writing -----------------------------------------------------------------------------


def write(prepared: Prepared) -> bytes:
    """The quiz as Moodle XML: a category per topic, multichoice questions (single answer)
    with feedback, pictures as base64 <file>, computed ones as calculatedmulti."""
    root = ET.Element("quiz")
    root.append(ET.Comment(f" exported by quizbot from the quiz {prepared.quiz.id!r} "
                           f"({prepared.lang}) "))
    category = None
    for q in prepared.questions:
        wanted = q.category or prepared.quiz.title.get(prepared.lang)
        if wanted != category:
            node = ET.SubElement(root, "question", type="category")
            _text(ET.SubElement(node, "category"), f"$course$/top/{wanted}")
            category = wanted
        if isinstance(q, Calculated):
            _calculated(root, q)
        elif isinstance(q, Typed):
            _numerical_out(root, q, prepared)
        else:
            _multichoice(root, q, prepared)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'.encode()


def _text(parent: ET.Element, text: str, html_format: bool = False) -> ET.Element:
    if html_format:
        parent.set("format", "html")
        text = html.escape(text, quote=False).replace("\n", "<br>")
    ET.SubElement(parent, "text").text = text
    return parent


def _head(root: ET.Element, kind: str, qid: str, text: str, general: str) -> ET.Element:
    node = ET.SubElement(root, "question", type=kind)
    _text(ET.SubElement(node, "name"), qid)
    _text(ET.SubElement(node, "questiontext"), text, html_format=True)
    _text(ET.SubElement(node, "generalfeedback"), general, html_format=True)
    ET.SubElement(node, "single").text = "true"
    ET.SubElement(node, "shuffleanswers").text = "true"
    return node


def _numerical_out(root: ET.Element, q: Typed, prepared: Prepared) -> None:
    """A typed-number question as Moodle's numerical: each answer with its tolerance and
    feedback, its unit (multiplier 1) when the options show one."""
    node = _head(root, "numerical", q.id, q.text, q.explanation)
    for tag in ("single", "shuffleanswers"):  # multiple choice's, not numerical's
        child = node.find(tag)
        assert child is not None
        node.remove(child)
    _picture_out(node, q.id, q.image, prepared)
    for value, tolerance, fraction, why in q.answers:
        answer = ET.SubElement(node, "answer", fraction=f"{fraction:g}")
        ET.SubElement(answer, "text").text = value
        _text(ET.SubElement(answer, "feedback"), why, html_format=True)
        ET.SubElement(answer, "tolerance").text = f"{tolerance:g}"
    if q.unit:
        unit = ET.SubElement(ET.SubElement(node, "units"), "unit")
        ET.SubElement(unit, "multiplier").text = "1"
        ET.SubElement(unit, "unit_name").text = q.unit


def _picture_out(node: ET.Element, qid: str, image: Path | None, prepared: Prepared) -> None:
    """The picture as a base64 <file> the question text shows (@@PLUGINFILE@@)."""
    if image is None:
        return
    try:
        data = read_image(image)
    except ImageRefused as exc:
        prepared.notes.append(f"{qid}: its picture is left out: {exc}")
        return
    holder, text = node.find("questiontext"), node.find("questiontext/text")
    assert holder is not None and text is not None
    text.text = f'{text.text}<br><img src="@@PLUGINFILE@@/{image.name}" alt="">'
    file = ET.SubElement(holder, "file", name=image.name, path="/", encoding="base64")
    file.text = base64.b64encode(data).decode()


def _multichoice(root: ET.Element, q: Plain, prepared: Prepared) -> None:
    node = _head(root, "multichoice", q.id, q.text, q.explanation)
    _picture_out(node, q.id, q.image, prepared)
    for n, (label, why) in enumerate(q.options):
        answer = _text(ET.SubElement(node, "answer", fraction="100" if n == q.correct else "0"),
                       label, html_format=True)
        _text(ET.SubElement(answer, "feedback"), why, html_format=True)


def _calculated(root: ET.Element, q: Calculated) -> None:
    node = _head(root, "calculatedmulti", q.id, q.text, q.explanation)
    kind, length = q.decimals
    for text, fraction, why in q.answers:
        answer = ET.SubElement(node, "answer", fraction=f"{fraction:g}")
        ET.SubElement(answer, "text").text = text
        for tag, setting in (("tolerance", "0.01"), ("tolerancetype", "1"),
                             ("correctanswerformat", str(kind)),
                             ("correctanswerlength", str(length))):
            ET.SubElement(answer, tag).text = setting
        _text(ET.SubElement(answer, "feedback"), why, html_format=True)
    definitions = ET.SubElement(node, "dataset_definitions")
    for name, values in q.datasets.items():
        d = ET.SubElement(definitions, "dataset_definition")
        _text(ET.SubElement(d, "status"), "private")
        _text(ET.SubElement(d, "name"), name)
        ET.SubElement(d, "type").text = "calculated"
        _text(ET.SubElement(d, "distribution"), "uniform")
        decimals = max((len(f"{v}".partition(".")[2]) for v in values if isinstance(v, float)),
                       default=0)
        _text(ET.SubElement(d, "minimum"), f"{min(values)}")
        _text(ET.SubElement(d, "maximum"), f"{max(values)}")
        _text(ET.SubElement(d, "decimals"), str(decimals))
        ET.SubElement(d, "itemcount").text = str(len(values))
        items = ET.SubElement(d, "dataset_items")
        for k, value in enumerate(values, 1):
            item = ET.SubElement(items, "dataset_item")
            ET.SubElement(item, "number").text = str(k)
            ET.SubElement(item, "value").text = f"{value}"
        ET.SubElement(d, "number_of_items").text = str(len(values))
