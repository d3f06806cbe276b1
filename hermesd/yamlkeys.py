"""YAML with duplicate keys found: PyYAML's safe loader (libyaml's parser when it has it) whose
mapping constructor records every key said twice in one mapping, where PyYAML silently keeps the last.

Every file hermesd reads as YAML that a person writes — the config layers, the rule packs, the
intent packs — is read through :func:`load`, and its caller turns each :class:`Duplicate` into an
error of its own kind with :func:`Duplicate.message`, so ``hermesd check-config`` and the daemon's
own loading say the same sentence at the same ``file:line``, every duplicate of a file at once.

A key repeated by a merge (``<<: *defaults`` then the same key) is YAML's override, not a duplicate.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import yaml

__all__ = ["Duplicate", "Loader", "load"]

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"


class Duplicate(NamedTuple):
    """A key said twice in one mapping: its text, the 1-based lines of the repeat and the first, and
    its dotted path from the document's top (``rules.0.priority``; list items by index)."""

    key: str
    line: int
    first_line: int
    path: str

    def message(self) -> str:
        """``duplicate key 'port' (first at line 3)`` — the sentence every loader reports."""
        return f"duplicate key {self.key!r} (first at line {self.first_line})"


class Loader(_Base):  # type: ignore[misc, valid-type]
    """The safe loader, recording each duplicate key in :attr:`duplicates` (document order) and then
    constructing as PyYAML does (the last value wins), so a caller can report every one and go on."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.duplicates: list[Duplicate] = []
        #: id of each mapping node → its dotted path (filled by :meth:`single_node`)
        self._paths: dict[int, str] = {}

    def single_node(self) -> Any:
        """The document's node tree (None when empty), its mappings' paths noted for the duplicates."""
        node = self.get_single_node()
        stack = [(node, "")]
        while stack:
            n, path = stack.pop()
            if isinstance(n, yaml.MappingNode):
                self._paths[id(n)] = path
                stack += [(v, f"{path}{k.value}.") for k, v in n.value if isinstance(k, yaml.ScalarNode)]
            elif isinstance(n, yaml.SequenceNode):
                stack += [(v, f"{path}{i}.") for i, v in enumerate(n.value)]
        return node

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):  # once per mapping node (an alias reuses what was built)
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: PyYAML refuses it itself
                    continue
                if first is None:
                    seen[key] = line
                else:
                    self.duplicates.append(Duplicate(str(key), line, first, f"{self._paths.get(id(node), '')}{key}"))
        return super().construct_mapping(node, deep=deep)


def load(text: str) -> tuple[Any, list[Duplicate]]:
    """Parse one YAML document.

    :return: the data (PyYAML's safe types; None for an empty document) and every duplicate key, in
        document order.
    :raises yaml.YAMLError: the text is not YAML (``problem_mark`` carries the line).
    """
    loader = Loader(text)
    try:
        node = loader.single_node()
        return (loader.construct_document(node) if node is not None else None), loader.duplicates
    finally:
        loader.dispose()
