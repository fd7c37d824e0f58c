"""YAML loading that remembers the line of every mapping key and list item, and trusts
nothing: anchors and aliases are refused where they first appear (before anything is
expanded, so ~1 KB of nested aliases costs nothing), nesting past MAX_DEPTH and
integers too long to read are refused at their line (not a RecursionError or ValueError
from deep inside the parser), and a key given twice in one mapping is recorded with both
lines instead of the last one silently winning."""

from __future__ import annotations

from typing import Any, cast

import yaml

MAX_DEPTH = 32  # nesting levels; a quiz file has about 6
_TOO_DEEP = f"nests deeper than {MAX_DEPTH} levels; a quiz file needs about 6"


class LineMap(dict[str, Any]):
    line: int
    key_lines: dict[str, int]


class LineList(list[Any]):
    line: int
    item_lines: list[int]


class RefusedYAML(yaml.MarkedYAMLError):
    """YAML that parses but that quiz files may not use (anchors, aliases, deep nesting)."""


class _PyParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


# libyaml's parser (the events) reads ~10x faster than PyYAML's own; composing the events
# into nodes stays in Python, below, where the checks are.
_Parser: Any = getattr(yaml, "cyaml", None) and getattr(yaml.cyaml, "CParser", None)
if _Parser is None:  # pragma: no cover - PyYAML built without libyaml
    _Parser = _PyParser


class LineLoader(yaml.composer.Composer, yaml.constructor.SafeConstructor,
                 yaml.resolver.Resolver, _Parser):  # type: ignore[misc]
    """A safe loader that remembers where each mapping key and list item stands."""

    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        yaml.composer.Composer.__init__(self)
        # (dotted key, first line, repeated line) for every key given twice in one mapping
        self.duplicates: list[tuple[str, int, int]] = []
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        """As SafeLoader's, but no alias (*name), no anchor (&name), at most MAX_DEPTH deep."""
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise RefusedYAML(None, None, "YAML anchors and aliases (&name, *name) are not "
                              "allowed in quiz files; write the value out", event.start_mark)
        if self.depth >= MAX_DEPTH:  # PyYAML composes recursively: stop before Python does
            raise RefusedYAML(None, None, _TOO_DEEP, event.start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def get_single_data(self) -> Any:
        """The document (its keys given twice in `duplicates`); libyaml's own nesting limit
        (1,000) says what ours says."""
        try:
            node = self.get_single_node()
        except yaml.MarkedYAMLError as exc:
            if "nesting depth" not in str(exc.problem):
                raise
            raise RefusedYAML(None, None, _TOO_DEEP, exc.problem_mark) from None
        if node is None:
            return None
        self.duplicates = duplicate_keys(node)
        return self.construct_document(node)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> Any:
        """As SafeLoader's, but a number too long to read is one line, not a ValueError."""
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            raise RefusedYAML(None, None, f"a number of {len(node.value)} characters is too "
                              "long to be a quiz's number", node.start_mark) from None

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        result = LineMap(cast(dict[str, Any], super().construct_mapping(node, deep=True)))
        result.line = node.start_mark.line + 1
        result.key_lines = {
            str(k.value): v.start_mark.line + 1 for k, v in node.value
        }
        return result

    def construct_sequence(self, node: yaml.SequenceNode, deep: bool = False) -> Any:
        result = LineList(super().construct_sequence(node, deep=True))
        result.line = node.start_mark.line + 1
        result.item_lines = [item.start_mark.line + 1 for item in node.value]
        return result


def duplicate_keys(node: yaml.Node) -> list[tuple[str, int, int]]:
    """(dotted key, first line, repeated line) for every key given twice in one mapping of
    a composed document: YAML keeps the last silently (a section pasted twice in a config,
    a `correct:` written twice in a quiz). Quiz files and the config file both ask this."""
    found: list[tuple[str, int, int]] = []
    walked: set[int] = set()  # a node an alias repeats is looked at once

    def walk(n: yaml.Node, prefix: str) -> None:
        if id(n) in walked:
            return
        walked.add(id(n))
        if isinstance(n, yaml.MappingNode):
            lines: dict[str, int] = {}
            for key, value in n.value:
                name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
                line = key.start_mark.line + 1
                if name in lines:
                    found.append((prefix + name, lines[name], line))
                else:
                    lines[name] = line
                walk(value, f"{prefix}{name}.")
        elif isinstance(n, yaml.SequenceNode):
            for item in n.value:
                walk(item, prefix)

    walk(node, "")
    return found


def _mapping(loader: Any, node: Any) -> Any:
    return loader.construct_mapping(node)


def _sequence(loader: Any, node: Any) -> Any:
    return loader.construct_sequence(node)


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)
LineLoader.add_constructor("tag:yaml.org,2002:int", LineLoader.construct_yaml_int)
