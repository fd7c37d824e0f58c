"""Validation of one quiz file's data: every problem names file, line and field path."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.domain.pipeline import ScheduleSpec
from bot.domain.quiz.computed_check import COMPUTED_KEYS, COMPUTED_REQUIRED, ComputedChecker
from bot.domain.quiz.images import ImageRefused, check_image
from bot.domain.quiz.model import LEVELS, Option, Question, Quiz, Text
from bot.domain.quiz.topics import RawTopics, read_topic_map
from bot.domain.quiz.yaml_lines import LineList, LineMap
from bot.domain.results import Reference

DIFFICULTIES = ("easy", "medium", "hard")
MIN_OPTIONS, MAX_OPTIONS = 2, 10
ID_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
LANG_RE = re.compile(r"[a-z]{2,3}")
URL_RE = re.compile(r"https?://\S+")

QUIZ_KEYS = {"id", "title", "description", "difficulty", "languages", "questions",
             "shuffle_questions", "level", "next", "topics"}
QUIZ_REQUIRED = QUIZ_KEYS - {"shuffle_questions", "level", "next", "topics"}
# Keys every question may have, computed or not.
COMMON_QUESTION_KEYS = {"takeaway", "topics"}
QUESTION_KEYS = {"id", "text", "options", "correct", "explanation", "references", "image",
                 *COMMON_QUESTION_KEYS}
QUESTION_REQUIRED = QUESTION_KEYS - {"references", "image", *COMMON_QUESTION_KEYS}
TAKEAWAY_MAX = 280  # refused past this; `quality_warnings` warns past 140
OPTION_KEYS = {"text", "why_not"}
REFERENCE_KEYS = {"title", "url"}


class Checker:
    """Walks one file's data, collecting problems instead of stopping at the first."""

    def __init__(self, source: str, base: Path | None = None,
                 shared_topics: RawTopics | None = None) -> None:
        self.source = source
        self.base = base  # the YAML file's folder, which image paths are relative to
        self.problems: list[str] = []
        self.languages: tuple[str, ...] = ()
        self.known_topics: RawTopics = dict(shared_topics or {})  # the folder's topics.yaml
        self.nodes = self.values = 0  # formula parts and parameter values read so far

    def error(self, line: int | None, path: str, message: str) -> None:
        where = f"{self.source}:{line}" if line else self.source
        self.problems.append(f"{where}: {path} {message}" if path else f"{where}: {message}")

    def mapping(self, value: Any, line: int | None, path: str, keys: set[str],
                required: set[str]) -> LineMap | None:
        if not isinstance(value, dict):
            self.error(line, path, f"must be a mapping, got {_kind(value)}")
            return None
        assert isinstance(value, LineMap)
        for key in sorted(set(value) - keys, key=str):
            self.error(value.key_lines.get(str(key), value.line), _join(path, str(key)),
                       f"is not a known key (expected one of: {', '.join(sorted(keys))})")
        for key in sorted(required - set(value)):
            self.error(value.line, _join(path, key), "is missing")
        return value

    def text(self, parent: LineMap, key: str, path: str, *, max_len: int) -> Text | None:
        value, full = parent.get(key), _join(path, key)
        line = parent.key_lines.get(key, parent.line)
        if not self.languages:
            return None  # `languages` itself is wrong and was reported; don't cascade
        if isinstance(value, str):
            value = {lang: value for lang in self.languages} if len(self.languages) == 1 else value
        if not isinstance(value, dict):
            self.error(line, full, f"must map each language to a string, got {_kind(value)}")
            return None
        ok = True
        for lang in self.languages:
            s = value.get(lang)
            if s is None:
                self.error(line, full, f"has no {lang!r} text (the quiz declares {lang!r})")
                ok = False
            elif not isinstance(s, str) or not s.strip():
                self.error(_line_of(value, lang, line), f"{full}.{lang}", "is empty")
                ok = False
            elif len(s) > max_len:
                self.error(_line_of(value, lang, line), f"{full}.{lang}",
                           f"is {len(s)} characters; the limit is {max_len}")
                ok = False
        for lang in sorted(set(value) - set(self.languages), key=str):
            self.error(_line_of(value, lang, line), f"{full}.{lang}",
                       "is a language the quiz does not declare in `languages`")
            ok = False
        if not ok:
            return None
        return Text(tuple((lang, value[lang].strip()) for lang in self.languages))

    def quiz(self, data: Any) -> Quiz | None:
        root = self.mapping(data, 1, "", QUIZ_KEYS, QUIZ_REQUIRED)
        if root is None:
            return None
        kl = root.key_lines
        # a required key that is missing was reported as such (`mapping`): not again here
        quiz_id = root.get("id")
        if "id" in root and (not isinstance(quiz_id, str) or not ID_RE.fullmatch(quiz_id)):
            self.error(kl.get("id", 1), "id", "must be 1-40 of a-z, 0-9, '-', '_' "
                       f"starting with a letter or digit, got {quiz_id!r}")
        langs = root.get("languages")
        if (not isinstance(langs, list) or not langs
                or not all(isinstance(x, str) and LANG_RE.fullmatch(x) for x in langs)):
            if "languages" in root:
                self.error(kl.get("languages", 1), "languages",
                           f"must be a list of language codes like [en, ur], got {langs!r}")
            langs = []
        elif len(set(langs)) != len(langs):
            self.error(kl.get("languages", 1), "languages", "lists a language twice")
        self.languages = tuple(dict.fromkeys(langs))
        difficulty = root.get("difficulty")
        if "difficulty" in root and difficulty not in DIFFICULTIES:
            self.error(kl.get("difficulty", 1), "difficulty",
                       f"must be one of {', '.join(DIFFICULTIES)}, got {difficulty!r}")
        shuffle = root.get("shuffle_questions", False)
        if not isinstance(shuffle, bool):
            self.error(kl.get("shuffle_questions", 1), "shuffle_questions",
                       f"must be true or false, got {shuffle!r}")
        level = root.get("level", "")
        if level and level not in LEVELS:
            self.error(kl.get("level", 1), "level",
                       f"must be one of {', '.join(LEVELS)}, got {level!r}")
        follow = root.get("next")
        if follow is not None and (not isinstance(follow, str) or not ID_RE.fullmatch(follow)
                                   or follow == quiz_id):
            self.error(kl.get("next", 1), "next", f"must be another quiz's id, got {follow!r}")
        if "topics" in root:
            own, problems = read_topic_map(root["topics"], self.source, kl.get("topics", 1),
                                           "topics")
            self.problems += problems
            self.known_topics.update(own)
        title = self.text(root, "title", "", max_len=200) if "title" in root else None
        description = (self.text(root, "description", "", max_len=1000)
                       if "description" in root else None)
        questions = self.questions(root)
        if self.problems or not self.languages:
            return None
        assert title and description and questions is not None
        used = dict.fromkeys(t for q in questions for t in q.topics)
        topics = tuple((t, self.topic_text(t)) for t in used)
        return Quiz(str(quiz_id), title, description, str(difficulty), self.languages,
                    questions, shuffle, self.source, level=str(level or ""),
                    next=follow, topics=topics)

    def topic_text(self, topic: str) -> Text:
        """A known topic's name in the quiz's languages (English, else the id, filling gaps:
        a missing translation of a shared name is not worth refusing a quiz for)."""
        names = self.known_topics[topic][0]
        return Text(tuple((lang, names.get(lang) or names.get("en") or topic)
                          for lang in self.languages))

    def extras(self, q: LineMap, path: str) -> tuple[Text | None, tuple[str, ...]] | None:
        """A question's takeaway and topics (both optional), or None when either is wrong."""
        ok = True
        takeaway = None
        if "takeaway" in q:
            takeaway = self.text(q, "takeaway", path, max_len=TAKEAWAY_MAX)
            ok = takeaway is not None
        topics = q.get("topics", [])
        tline = q.key_lines.get("topics", q.line)
        if not isinstance(topics, list) or not all(isinstance(t, str) for t in topics):
            self.error(tline, f"{path}.topics", f"must be a list of topic ids, got {topics!r}")
            return None
        for t in topics:
            if t not in self.known_topics:
                known = ", ".join(sorted(self.known_topics)) or "none declared"
                self.error(tline, f"{path}.topics", f"names {t!r}, which is not a declared "
                           f"topic (topics.yaml or the quiz's `topics:`; known: {known})")
                ok = False
        return (takeaway, tuple(dict.fromkeys(topics))) if ok else None

    def questions(self, root: LineMap) -> tuple[Question, ...] | None:
        items, line = root.get("questions"), root.key_lines.get("questions", 1)
        if "questions" not in root:
            return None
        if not isinstance(items, list) or not items:
            self.error(line, "questions", "must be a non-empty list of questions")
            return None
        assert isinstance(items, LineList)
        out: list[Question] = []
        seen: dict[str, int] = {}
        for i, (item, item_line) in enumerate(zip(items, items.item_lines, strict=True)):
            path = f"questions[{i}]"
            computed = isinstance(item, dict) and "params" in item
            q = self.mapping(item, item_line, path, COMPUTED_KEYS if computed else QUESTION_KEYS,
                             COMPUTED_REQUIRED if computed else QUESTION_REQUIRED)
            if q is None:
                continue
            qid = q.get("id")
            if not isinstance(qid, str) or not ID_RE.fullmatch(qid):
                self.error(q.key_lines.get("id", item_line), f"{path}.id",
                           f"must be 1-40 of a-z, 0-9, '-', '_', got {qid!r}")
            elif qid in seen:
                self.error(q.key_lines.get("id", item_line), f"{path}.id",
                           f"{qid!r} duplicates the id of questions[{seen[qid]}]")
            else:
                seen[qid] = i
            question = (ComputedChecker(self, q, path).question(qid) if computed
                        else self.question(q, path, item_line, qid))
            if computed and question is not None and "image" in q:  # an imported picture
                image = self.image(q, path)
                question = None if image is None else replace(question, image=image)
            extras = self.extras(q, path)
            if question is not None and extras is not None:
                out.append(replace(question, takeaway=extras[0], topics=extras[1]))
        return tuple(out)

    def question(self, q: LineMap, path: str, line: int, qid: Any) -> Question | None:
        text = self.text(q, "text", path, max_len=1500) if "text" in q else None
        explanation = (self.text(q, "explanation", path, max_len=1500)
                       if "explanation" in q else None)
        options = self.options(q, path)
        correct = q.get("correct")
        cline = q.key_lines.get("correct", line)
        if "correct" in q and (not isinstance(correct, int) or isinstance(correct, bool)):
            self.error(cline, f"{path}.correct",
                       f"must be the 0-based index of the right option, got {correct!r}")
            correct = None
        elif options is not None and isinstance(correct, int) and not 0 <= correct < len(options):
            self.error(cline, f"{path}.correct",
                       f"is {correct} but the question has {len(options)} options "
                       f"(0-based: 0 to {len(options) - 1})")
            correct = None
        references = self.references(q, path)
        image = self.image(q, path) if "image" in q else None
        if (text is None or explanation is None or options is None or correct is None
                or references is None or not isinstance(qid, str)
                or ("image" in q and image is None)):
            return None
        schedule = ScheduleSpec.parse(image.stem) if image else None
        return Question(qid, text, options, correct, explanation, references, line=line,
                        image=image, schedule=schedule)

    def image(self, q: LineMap, path: str) -> Path | None:
        """The picture's path, checked by `bot.domain.quiz.images.check_image`."""
        value, line = q.get("image"), q.key_lines.get("image", q.line)
        where = f"{path}.image"
        if not isinstance(value, str) or not value.strip():
            self.error(line, where, f"must be a path like img/gpipe-p4-m4.png, got {value!r}")
            return None
        try:
            return check_image(self.base or Path("."), value).resolve()
        except ImageRefused as exc:
            self.error(line, where, str(exc))
            return None

    def options(self, q: LineMap, path: str) -> tuple[Option, ...] | None:
        items = q.get("options")
        if "options" not in q:
            return None
        line = q.key_lines["options"]
        if not isinstance(items, list):
            self.error(line, f"{path}.options", f"must be a list, got {_kind(items)}")
            return None
        assert isinstance(items, LineList)
        if not MIN_OPTIONS <= len(items) <= MAX_OPTIONS:
            self.error(line, f"{path}.options",
                       f"has {len(items)} options; a question needs {MIN_OPTIONS} to {MAX_OPTIONS}")
            return None
        out: list[Option] = []
        for j, (item, item_line) in enumerate(zip(items, items.item_lines, strict=True)):
            opath = f"{path}.options[{j}]"
            o = self.mapping(item, item_line, opath, OPTION_KEYS, {"text"})
            if o is None:
                continue
            text = self.text(o, "text", opath, max_len=500) if "text" in o else None
            why_not = self.text(o, "why_not", opath, max_len=500) if "why_not" in o else None
            if text is not None:
                out.append(Option(text, why_not, line=item_line))
        return tuple(out) if len(out) == len(items) else None

    def references(self, q: LineMap, path: str) -> tuple[Reference, ...] | None:
        items = q.get("references", [])
        line = q.key_lines.get("references", q.line)
        if not isinstance(items, list):
            self.error(line, f"{path}.references", f"must be a list, got {_kind(items)}")
            return None
        lines = getattr(items, "item_lines", [line] * len(items))
        out: list[Reference] = []
        for k, (item, item_line) in enumerate(zip(items, lines, strict=True)):
            rpath = f"{path}.references[{k}]"
            r = self.mapping(item, item_line, rpath, REFERENCE_KEYS, REFERENCE_KEYS)
            if r is None or not {"title", "url"} <= set(r):
                continue
            title, url = r["title"], r["url"]
            if not isinstance(title, str) or not title.strip():
                self.error(r.key_lines["title"], f"{rpath}.title", "is empty")
            elif not isinstance(url, str) or not URL_RE.fullmatch(url):
                self.error(r.key_lines["url"], f"{rpath}.url",
                           f"must be an http(s) URL, got {url!r}")
            else:
                out.append(Reference(title.strip(), url))
        return tuple(out) if len(out) == len(items) else None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _line_of(value: Any, key: str, default: int) -> int:
    return int(getattr(value, "key_lines", {}).get(key, default))


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return "nothing" if value is None else type(value).__name__
