"""The `kaist-kit` application: its consoles, and how errors and warnings reach the user."""

import warnings
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .. import __version__
from ..errors import InputError, KitWarning
from .command import KitGroup

app = typer.Typer(
    name="kaist-kit",
    help="Tools for the KAIST multispectral pedestrian benchmark: convert, evaluate, train, submit.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: rich's panels cut long defaults (paths) short and label flags <bool>. Help uses
    # the terminal's width, up to 120 columns.
    rich_markup_mode=None,
    context_settings={"max_content_width": 120},
    # Every verb's options read and checked by the kit, its help shown whole (see command.py).
    cls=KitGroup,
)
# No emoji codes: a method named "a:ok:" is printed as it is named.
out = Console(soft_wrap=True, emoji=False)
err = Console(stderr=True, soft_wrap=True, emoji=False)


def say(line: str) -> None:
    """One line of progress or of what was written, on standard error, printed as written."""
    err.print(line, highlight=False, markup=False)


def show_findings(findings) -> None:
    """Each finding as one line on standard error, led by its level."""
    colour = {"error": "red", "warning": "yellow", "note": "blue"}
    for finding in findings:
        err.print(
            f"[{colour.get(finding.level, 'yellow')}]{finding.level}:[/] {escape(finding.line())}",
            markup=True,
            highlight=False,
        )


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, KitWarning):
        err.print(f"[yellow]warning:[/yellow] {escape(str(message))}", markup=True, highlight=False)
    else:
        err.print(f"warning: {category.__name__}: {message}", markup=False, highlight=False)


def run() -> int:
    """The command line in sys.argv, run within the command's input scope: its exit code. Input errors
    and bad option values become one line on stderr and exit code 2; interrupts are the entry point's
    (`console.main`)."""
    warnings.showwarning = _show_warning
    warnings.simplefilter("default", KitWarning)
    # numpy's floating-point warnings (overflow on a box of 1e308, say) say nothing a user can act
    # on: what causes them is reported as a finding that names the file and line.
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    from ..io.read import input_scope

    try:
        with input_scope():  # the command's inputs, which its outputs may not overwrite
            code = app(standalone_mode=False)
    except InputError as exc:
        _error(str(exc))
        code = 2
    except typer.TyperException as exc:  # a bad option value, a missing argument, an unknown option
        _error(exc.format_message() if hasattr(exc, "format_message") else str(exc))
        code = getattr(exc, "exit_code", 2)
    except typer.Abort:
        code = 1
    except OSError as exc:
        # A file the kit could not read or write that no check caught first: still one line.
        where = f"{exc.filename}: " if exc.filename else ""
        _error(where + (exc.strerror or str(exc)))
        code = 2
    return code if isinstance(code, int) else 0


def _error(message: str) -> None:
    err.print(f"[red]error:[/red] {escape(' '.join(message.split()))}", markup=True, highlight=False)


def _version(value: bool) -> None:
    if value:
        out.print(f"kaist-kit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    pass
