"""Topics: what a question is about (bubble, memory, ...), so a learner's mastery can be
told per topic across quizzes. The content folder's `topics.yaml` names the shared ones;
a quiz may add its own under `topics:`. Both map a topic id to its name per language:

    topics:
      bubble: {en: Pipeline bubble, ur: پائپ لائن ببل}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from bot.domain.quiz.yaml_lines import LineLoader, LineMap

TOPICS_FILE = "topics.yaml"
TOPIC_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")

# Raw names per topic id, with the line each was declared on: {"bubble": ({"en": ...}, 3)}
RawTopics = dict[str, tuple[dict[str, str], int]]


def read_topic_map(value: Any, source: str, line: int, path: str) -> tuple[RawTopics, list[str]]:
    """The topics of a `topics:` mapping, and one `file:line: problem` per thing wrong."""
    problems: list[str] = []
    if not isinstance(value, dict):
        return {}, [f"{source}:{line}: {path} must map each topic id to its names "
                    "({en: ..., ur: ...})"]
    key_lines = value.key_lines if isinstance(value, LineMap) else {}
    out: RawTopics = {}
    for tid, names in value.items():
        tline = key_lines.get(str(tid), line)
        if not isinstance(tid, str) or not TOPIC_RE.fullmatch(tid):
            problems.append(f"{source}:{tline}: {path}.{tid} must be an id of a-z, 0-9 and '-'")
        elif (not isinstance(names, dict) or not names
              or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                         for k, v in names.items())):
            problems.append(f"{source}:{tline}: {path}.{tid} must map each language to a name")
        else:
            out[tid] = ({k: v.strip() for k, v in names.items()}, tline)
    return out, problems


def read_topics_file(path: Path) -> tuple[RawTopics, list[str]]:
    """The shared topics in `path` (none when there is no such file), and its problems."""
    if not path.is_file():
        return {}, []
    source = str(path)
    try:
        loader = LineLoader(path.read_text(encoding="utf-8"))
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return {}, [f"{source}: cannot be read as YAML: {exc}"]
    if not isinstance(data, dict) or "topics" not in data:
        return {}, [f"{source}:1: must have a `topics:` mapping"]
    line = data.key_lines.get("topics", 1) if isinstance(data, LineMap) else 1
    return read_topic_map(data["topics"], source, line, "topics")
