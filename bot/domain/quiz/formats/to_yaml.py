"""A `Draft` as our quiz YAML, readable by a person: one block per question, its source
position and category in a comment above it, multi-line text as literal blocks, pictures
as files beside it in img/. Categories become the quiz's own `topics:` (the last part of
the category's path names the topic)."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import yaml

from bot.domain.quiz.formats import numerical
from bot.domain.quiz.formats.draft import Draft, DraftQuestion, key_index, slug, stable_id
from bot.domain.quiz.images import SUFFIXES
from bot.domain.quiz.model import Quiz

# The description an imported quiz gets, in the quiz's language: content written into its
# file for the teacher to edit, as the reader names true/false options (draft.TRUE_FALSE);
# a language without one here gets English. (one question, several questions)
DESCRIPTIONS = {
    "en": ("{count} question imported from {name}.", "{count} questions imported from {name}."),
    "ur": ("{name} سے درآمد کیا گیا {count} سوال۔", "{name} سے درآمد کیے گئے {count} سوالات۔"),
}


@dataclass(slots=True)
class Converted:
    yaml: str
    images: dict[str, bytes] = field(default_factory=dict)  # "img/x.png" -> bytes
    starts: list[tuple[int, str]] = field(default_factory=list)  # (YAML line, source where)

    def locate(self, problem: str, shown: str, source: str) -> str:
        """A loader problem about the written YAML (`shown:LINE: ...`) told at the source's
        position of the question it is in (else as about the source file)."""
        match = re.match(rf"{re.escape(shown)}(?::(\d+))?: (.*)", problem, re.DOTALL)
        if not match or not self.starts:  # our own YAML: its lines are the source's
            return problem.replace(shown, source, 1)
        where = self._where(int(match.group(1) or 0), source)
        # the source's line names the question; our YAML's index of it would not (questions
        # the reader refused are not in the YAML): "questions[2].options has" -> "options has"
        said = re.sub(r"^questions\[\d+\](\.?)", lambda m: "" if m.group(1) else "the question",
                      match.group(2))
        # another question named by its line in our YAML ("repeats the question at line 9")
        said = re.sub(r"\bline (\d+)\b", lambda m: self._where(int(m.group(1)), source), said)
        return f"{where}: {said}"

    def _where(self, line: int, source: str) -> str:
        """The source's position of the question our YAML's `line` is in."""
        return next((w for start, w in reversed(self.starts) if start <= line), source)


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # quiz files refuse anchors and aliases


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    flow = all(isinstance(x, (int, float, str)) and "\n" not in str(x) for x in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(list, _list)


def dump(value: Any) -> str:
    """`value` as block-style YAML, keys in the order given."""
    return yaml.dump(value, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=88,
                     default_flow_style=False)


def quiz_id_for(name: str) -> str:
    """The quiz id a file's name gives ("Week 3 Pipes.gift" -> "week-3-pipes"); a name
    without Latin letters or digits ("ہفتہ ۳.csv") gives one from its hash, so two such
    files are two quizzes (one id for all of them made each upload replace the last)."""
    stem = PurePath(name).stem
    return slug(stem) or stable_id("", f"quiz {stem}", set(), "quiz")


def readable_title(name: str) -> str:
    """A title from a file's name, for a file that gives none: "my_quiz_v2.csv" -> "My quiz
    v2" (underscores and dashes are spaces; the first letter capitalised, the rest kept:
    "GPipe-basics" -> "GPipe basics")."""
    words = " ".join(re.sub(r"[_-]+", " ", PurePath(name).stem).split())
    return words[:1].upper() + words[1:]


def description(lang: str, count: int, name: str) -> str:
    """An imported quiz's description in its language: "6 questions imported from x.gift"."""
    one, several = DESCRIPTIONS.get(lang, DESCRIPTIONS["en"])
    return (one if count == 1 else several).format(count=count, name=name)


def fingerprint(text: str, options: list[str]) -> str:
    """A question's text and options, spacing and the options' order aside."""
    return " | ".join([" ".join(text.split()), *sorted(" ".join(o.split()) for o in options)])


def kept_ids(quiz: Quiz) -> dict[str, str]:
    """Each question of `quiz` (the version installed before) by its `fingerprint`: an
    unnamed question the same in text and options keeps that id when imported again, so a
    quiz imported under an earlier rule for ids keeps its learners' progress."""
    lang = quiz.languages[0]
    return {fingerprint(q.text.get(lang), [o.text.get(lang) for o in q.options]): q.id
            for q in quiz.questions if q.computed is None}


def to_yaml(draft: Draft, quiz_id: str, lang: str,
            keep: Mapping[str, str] | None = None, reserved: Collection[str] = ()) -> Converted:
    """The quiz as YAML text; problems (no key, two keys) are added to the draft. An
    unnamed question whose `fingerprint` is in `keep` keeps the id it maps to. No category
    becomes a topic id in `reserved` (the shipped topics')."""
    out = Converted("")
    name = PurePath(draft.source).name
    head: dict[str, Any] = {
        "id": quiz_id, "title": draft.title or readable_title(name) or quiz_id,
        "description": description(lang, len(draft.questions), name),
        "difficulty": "medium", "languages": [lang]}
    topics = _topics(draft, reserved)
    if topics:  # categories become the quiz's own topics
        head["topics"] = {tid: {lang: label} for label, tid in topics.items()}
    lines = [f"# Imported from {name} by `quizbot import`; edit freely, then run "
             "`quizbot validate`.", *dump(head).rstrip().splitlines(), "questions:"]
    kept = _kept(draft, keep or {})
    taken: set[str] = set(kept.values())
    repeated = _repeated_texts(draft)
    for n, q in enumerate(draft.questions):
        # an id kept from the version before, else from its name or text
        qid = kept.get(n) or stable_id(q.name, id_stem(q, repeated), taken)
        item = _question(q, qid, draft, quiz_id, lang, out)
        if item is None:
            continue
        if q.category:
            item["topics"] = [topics[_label(q.category)]]
        out.starts.append((len(lines) + 1, q.where))
        lines.append(f"  # {q.where}" + (f"; category: {q.category}" if q.category else ""))
        lines.extend(("  " + line).rstrip() for line in dump([item]).rstrip().splitlines())
    out.yaml = "\n".join(lines) + "\n"
    return out


def _kept(draft: Draft, keep: Mapping[str, str]) -> dict[int, str]:
    """Which unnamed questions (by index) keep which id of the version before."""
    out: dict[int, str] = {}
    for n, q in enumerate(draft.questions):
        qid = keep.get(fingerprint(q.text, [o.text for o in q.options]))
        if not slug(q.name) and q.computed is None and qid and qid not in out.values():
            out[n] = qid
    return out


def _repeated_texts(draft: Draft) -> set[str]:
    """The texts (spacing aside) that more than one unnamed question has."""
    texts = [" ".join(q.text.split()) for q in draft.questions if not slug(q.name)]
    return {t for t in texts if texts.count(t) > 1}


def id_stem(q: DraftQuestion, repeated: set[str]) -> str:
    """What an unnamed question's id is hashed from: its text; a text several questions
    share ("Which statement is true?") adds its options (in any order), so that no
    question's id depends on its row or its place in the file. Only questions the same in
    text and options are then told apart by order (-2, -3), which swaps nothing a learner
    could tell apart."""
    if " ".join(q.text.split()) not in repeated:
        return q.text
    return fingerprint(q.text, [o.text for o in q.options])


def _label(category: str) -> str:
    return category.rsplit("/", 1)[-1].strip()


def _topics(draft: Draft, reserved: Collection[str]) -> dict[str, str]:
    """Each category's name (its last part) -> a topic id, unique, in file order. Topics
    are told across quizzes by id, so a category that slugs to a shipped topic's id
    ("Memory" -> memory) takes another ("memory-2"): a photosynthesis quiz's "Memory" is
    not pipeline parallelism's, whose questions `/review` would mix in and whose name a
    summary would show."""
    out: dict[str, str] = {}
    taken = set(reserved)
    for q in draft.questions:
        label = _label(q.category)
        if label and label not in out:
            # an Urdu category's id is "topic-<hash>": shown beside its name in /review's
            # list of topics, "q-<hash>" read as a question's
            out[label] = stable_id(label, label, taken, "topic")
    return out


def _question(q: DraftQuestion, qid: str, draft: Draft, quiz_id: str, lang: str,
              out: Converted) -> dict[str, Any] | None:
    if q.computed is not None:
        typed = {"id": qid, **numerical.in_language(q.computed, lang)}
        if q.image is not None:
            typed["image"] = _image(q, qid, quiz_id, out)
        return typed
    key = key_index(q, draft)
    if key is None:
        return None
    right = q.options[key]
    explanation = "\n\n".join(x for x in dict.fromkeys((q.general, right.feedback)) if x)
    if not explanation:
        explanation = right.text
        draft.warnings.append(f"{q.where}: no general feedback; the explanation is the right "
                              "answer's text (write a better one)")
    options: list[dict[str, Any]] = []
    for n, option in enumerate(q.options):
        options.append({"text": option.text} if n == key or not option.feedback
                       else {"text": option.text, "why_not": option.feedback})
    item: dict[str, Any] = {"id": qid, "text": q.text, "options": options, "correct": key,
                            "explanation": explanation}
    if q.image is not None:
        item["image"] = _image(q, qid, quiz_id, out)
    return item


def _image(q: DraftQuestion, qid: str, quiz_id: str, out: Converted) -> str:
    """The question's picture as a file beside the quiz, by its path."""
    assert q.image is not None
    source, data = q.image
    suffix = PurePath(source).suffix.lower()
    path = f"img/{quiz_id}-{qid}{suffix if suffix in SUFFIXES else '.png'}"
    out.images[path] = data
    return path
