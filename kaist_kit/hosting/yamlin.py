"""A challenge bundle's YAML, read as the platforms read it (PyYAML's safe loader) within bounds.

PyYAML reads an alias as a second reference to its anchor's node, so a document of a few hundred bytes
can stand for billions of values ("billion laughs"): whoever walks it, prints it or compares it then
never ends. And its composer recurses, one level per nested list, so 5,000 nested lists end in a
RecursionError. The document's events (PyYAML's parser is iterative) are counted first: its nesting
and its size with every alias expanded are bounded, and a document beyond them is refused in one line
before it is composed.
"""

from __future__ import annotations

import os

from ..errors import InputError
from ..io.read import read_bytes
from ..io.text import decode_text

MAX_DEPTH = 64  # nested lists and mappings
MAX_NODES = 200_000  # values, each alias counted as the values it stands for
MAX_BYTES = 4 << 20  # a configuration is a few kB


def read_yaml(path: str | os.PathLike, shown: str | os.PathLike | None = None) -> object:
    """The YAML document of the file ``path`` (named ``shown`` in messages), bounded; an InputError
    naming the file and line when it is not one."""
    return parse_yaml(read_bytes(path), shown or path)


def parse_yaml(data: bytes, shown: str | os.PathLike) -> object:
    if len(data) > MAX_BYTES:
        raise InputError(f"the YAML holds {len(data):,} bytes, more than a configuration's {MAX_BYTES:,}", shown)
    try:
        import yaml
    except ImportError:
        raise InputError(
            "`kaist-kit host check` reads YAML with PyYAML, as both platforms do: pip install pyyaml "
            "(or kaist-kit[host])"
        ) from None
    text = decode_text(data, shown)
    try:
        _check_shape(yaml.parse(text, Loader=yaml.SafeLoader), shown)
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"invalid YAML: {problem}", shown, mark.line + 1 if mark else None) from None


def _check_shape(events, shown) -> None:
    """Refuse a document nested deeper than MAX_DEPTH or holding more than MAX_NODES values once its
    aliases are expanded, from its events, before anything is built of it."""
    import yaml

    sizes: dict[str, int] = {}  # an anchor's values, its aliases' expansion
    open_: list[list] = [[None, 0]]  # [anchor, values so far] of every collection being read
    for event in events:
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            open_.append([event.anchor, 1])
            if len(open_) - 1 > MAX_DEPTH:
                raise InputError(f"the YAML nests deeper than {MAX_DEPTH} levels", shown, _line(event))
            continue
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            anchor, count = open_.pop()
        elif isinstance(event, yaml.ScalarEvent):
            anchor, count = event.anchor, 1
        elif isinstance(event, yaml.AliasEvent):
            anchor, count = None, sizes.get(event.anchor, 1)
        else:
            continue
        if anchor is not None:
            sizes[anchor] = count
        open_[-1][1] += count
        if open_[-1][1] > MAX_NODES:
            raise InputError(
                f"the YAML stands for more than {MAX_NODES:,} values once its aliases are expanded", shown, _line(event)
            )


def _line(event) -> int | None:
    mark = getattr(event, "start_mark", None)
    return mark.line + 1 if mark is not None else None
