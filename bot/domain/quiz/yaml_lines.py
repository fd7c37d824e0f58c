"""YAML loading that remembers the line of every mapping key and list item."""

from __future__ import annotations

from typing import Any, cast

import yaml


class LineMap(dict[str, Any]):
    line: int
    key_lines: dict[str, int]


class LineList(list[Any]):
    line: int
    item_lines: list[int]


class LineLoader(yaml.SafeLoader):
    """SafeLoader that remembers where each mapping key and list item stands."""

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


def _mapping(loader: Any, node: Any) -> Any:
    return loader.construct_mapping(node)


def _sequence(loader: Any, node: Any) -> Any:
    return loader.construct_sequence(node)


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)
