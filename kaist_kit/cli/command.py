"""How the command line reads its options and shows its help, for every verb.

- Values: each option's text becomes its value here, checked where it enters: whole numbers and
  finite real numbers in the ranges their options declare (`Whole`, `Real`), choices by their
  names, paths and text as given. A bad value is one line naming the option and what it accepts,
  exit code 2. typer would build a pydantic validator for each parameter instead, which costs a
  tenth of a second at every start of the command; the kit's conversion is installed on typer's
  parameters (its per-parameter `_runtime_param`) when they have that hook, and typer's own is
  kept otherwise, with the same parsers.
- Help: a parameter is shown by its metavar alone (typer adds the Python type of an argument,
  `<list[Path]>`), an argument without a default, and the list of commands gives each one's whole
  first paragraph, wrapped to the terminal, where click would cut it at 45 characters.

`KitGroup` applies both to every verb of the application, whichever module registers it.
"""

from __future__ import annotations

import math
import re
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import typer
from typer.core import TyperGroup

_WHOLE = re.compile(r"[-+]?[0-9]+")
_REAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _number_text(value: float) -> str:
    """How a range's bound is written in a message: 4294967295, 1e+09, 0.5."""
    return str(value) if isinstance(value, int) else f"{value:g}"


class Whole:
    """An option's whole number from ``low`` to ``high``: `parser=Whole(0, 100)` on a typer option."""

    def __init__(self, low: int, high: int):
        self.low, self.high = low, high

    @property
    def accepts(self) -> str:
        return f"a whole number from {_number_text(self.low)} to {_number_text(self.high)}"

    def __call__(self, text: Any) -> int:
        if isinstance(text, int) and not isinstance(text, bool):
            value = text
        elif isinstance(text, str) and _WHOLE.fullmatch(text.strip()):
            value = int(text)
        else:
            raise typer.BadParameter(f"{str(text)[:40]!r} is not {self.accepts}")
        if not self.low <= value <= self.high:
            raise typer.BadParameter(f"{str(text)[:40]} is not {self.accepts}")
        return value


def whole_option(low: int, high: int, *flag: str, metavar: str = "N", help: str):
    """An option of a whole number from ``low`` to ``high``; a value outside is one line naming the range."""
    return Annotated[int, typer.Option(*flag, metavar=metavar, parser=Whole(low, high), help=help)]


class Real:
    """An option's finite real number in a range, each end open or closed: `parser=Real(0, 1,
    low_open=True, high_open=True)` for 0 < T < 1."""

    def __init__(self, low: float, high: float, *, low_open: bool = False, high_open: bool = False):
        self.low, self.high, self.low_open, self.high_open = low, high, low_open, high_open

    @property
    def accepts(self) -> str:
        if self.low == -math.inf and self.high == math.inf:
            return "a finite number"
        low = f"above {_number_text(self.low)}" if self.low_open else f"from {_number_text(self.low)}"
        high = f"below {_number_text(self.high)}" if self.high_open else f"to {_number_text(self.high)}"
        return f"a number {low} and {high}" if self.low_open or self.high_open else f"a number {low} {high}"

    def __call__(self, text: Any) -> float:
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            value = float(text)
        elif isinstance(text, str) and _REAL.fullmatch(text.strip()):
            value = float(text)
        else:
            raise typer.BadParameter(f"{str(text)[:40]!r} is not {self.accepts}")
        inside = (self.low < value if self.low_open else self.low <= value) and (
            value < self.high if self.high_open else value <= self.high
        )
        if not (math.isfinite(value) and inside):
            raise typer.BadParameter(f"{str(text)[:40]} is not {self.accepts}")
        return value


class _Conversion:
    """One parameter's values from their text: by its parser, or by its type (text, a path, a whole
    or finite real number, one of an enum's values)."""

    KNOWN = (str, Path, int, float, bool)

    def __init__(self, annotation: Any, parser):
        self.many = get_origin(annotation) is list
        self.type = get_args(annotation)[0] if self.many else annotation
        self.parser = parser

    @classmethod
    def of(cls, param) -> _Conversion | None:
        """The conversion of a typer parameter, or None for a type the kit does not convert itself."""
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None:
            return None
        conversion = cls(descriptor.annotation, descriptor.parameter_info.parser)
        kind = conversion.type
        known = (
            conversion.parser is not None or kind in cls.KNOWN or (isinstance(kind, type) and issubclass(kind, Enum))
        )
        return conversion if known else None

    def coerce(self, value: Any, param, ctx) -> Any:
        if value is None:
            return () if param.multiple or param.nargs == -1 else None
        if self.many:
            return [self.one(item, param, ctx) for item in value]
        return self.one(value, param, ctx)

    def one(self, value: Any, param, ctx) -> Any:
        if self.parser is not None:
            return self.parser(value)
        kind = self.type
        if isinstance(kind, type) and issubclass(kind, Enum):
            if isinstance(value, kind):
                return value
            try:
                return kind(value)
            except ValueError:
                names = ", ".join(member.value for member in kind)
                raise typer.BadParameter(f"{str(value)[:40]!r} is not one of {names}", ctx=ctx, param=param) from None
        if kind is bool:
            return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes", "on")
        if kind is int:
            return Whole(-(2**63), 2**63 - 1)(value)
        if kind is float:
            return Real(-math.inf, math.inf)(value) if not isinstance(value, float) else value
        if kind is Path:
            return value if isinstance(value, Path) else Path(value)
        return value


class _HelpNames:
    """What click asks of a context to make a command's --help option."""

    def __init__(self, command):
        self.help_option_names = (command.context_settings or {}).get("help_option_names", ["--help"])


def adapt(command) -> None:
    """Install the kit's conversion and help on a click command made by typer (see the module)."""
    first = (command.help or "").strip().split("\n\n")[0]
    if first and not command.short_help:
        command.short_help = " ".join(first.split())
    # click makes a command's --help option when it first runs, and keeps it: made now, it is
    # converted as the other options are.
    help_option = command.get_help_option(_HelpNames(command))
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        conversion = _Conversion.of(param)
        if conversion is not None and hasattr(param, "_runtime_param"):
            param._runtime_param = conversion
        if getattr(param, "param_type_name", "") == "argument":
            param.show_default = False  # an argument is given, never defaulted to what help would show
            if param.metavar:
                param.display_type_rich = _no_type


def _no_type(ctx=None) -> None:
    return None


class KitGroup(TyperGroup):
    """The application's group: its verbs, each adapted (`adapt`), those of its sub-groups
    (`kaist-kit host evalai`) included."""

    def __init__(self, **attrs: Any):
        super().__init__(**attrs)
        adapt(self)
        groups = [self]
        while groups:
            for command in groups.pop().commands.values():
                adapt(command)
                if isinstance(command, TyperGroup):
                    groups.append(command)
