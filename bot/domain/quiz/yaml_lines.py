"""YAML loading that remembers the line of every mapping key and list item, and trusts
nothing: anchors and aliases are refused where they first appear (before anything is
expanded, so ~1 KB of nested aliases costs nothing), so is nesting past MAX_DEPTH (PyYAML
composes recursively), and a key given twice in one mapping
is recorded with both lines instead of the last one silently winning."""

from __future__ import annotations

from typing import Any, cast

import yaml

MAX_DEPTH = 32  # nesting levels; a quiz file has about 6


class LineMap(dict[str, Any]):
    line: int
    key_lines: dict[str, int]


class LineList(list[Any]):
    line: int
    item_lines: list[int]


class RefusedYAML(yaml.MarkedYAMLError):
    """YAML that parses but that quiz files may not use (anchors, aliases)."""


class LineLoader(yaml.SafeLoader):
    """SafeLoader that remembers where each mapping key and list item stands."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        # (key, first line, repeated line) for every key given twice in one mapping
        self.duplicates: list[tuple[str, int, int]] = []
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        """As SafeLoader's, but no alias (*name) and no anchor (&name)."""
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise RefusedYAML(None, None, "YAML anchors and aliases (&name, *name) are not "
                              "allowed in quiz files; write the value out", event.start_mark)
        if self.depth >= MAX_DEPTH:  # PyYAML composes recursively: stop before Python does
            raise RefusedYAML(None, None, f"nests deeper than {MAX_DEPTH} levels; a quiz "
                              "file needs about 6", event.start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            line = key_node.start_mark.line + 1
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
            if key in seen:
                self.duplicates.append((str(key), seen[key], line))
            else:
                seen[key] = line
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


def _mapping(loader: Any, node: Any) -> Any:
    return loader.construct_mapping(node)


def _sequence(loader: Any, node: Any) -> Any:
    return loader.construct_sequence(node)


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)
