"""The command's start and end: `import kaist_kit` imports nothing heavy, the command imports only the
verb it runs, and an interrupt at any moment of the command (while it imports its modules, while it
works, once it is done) ends it without a traceback."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
POSIX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals")


def python(code: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=120)


def test_importing_the_package_or_the_command_imports_nothing_heavy():
    proc = python(
        "import sys, kaist_kit, kaist_kit.cli\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'typer', 'rich', 'msgspec', "
        "'matplotlib', 'click'})\n"
        "kit = sorted(m for m in sys.modules if m.startswith('kaist_kit'))\n"
        "print(heavy, kit)"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [
        "[]",
        "['kaist_kit',",
        "'kaist_kit.cli',",
        "'kaist_kit.cli.console',",
        "'kaist_kit.exports']",
    ]


@pytest.mark.parametrize("first", ["", "import kaist_kit.metrics.evaluate, kaist_kit.cli.options, kaist_kit.cli.app\n"])
def test_public_names_are_what_they_name_whatever_was_imported_first(first):
    """`kaist_kit.evaluate` is the function of the module `kaist_kit.metrics.evaluate`, and `kaist_kit.cli.app` is
    a module too: importing a module sets its package's attribute to it, which must not change what the
    public name gives."""
    proc = python(
        first + "import types, typer, kaist_kit\n"
        "from kaist_kit import evaluate, Evaluation, load_ground_truth, SETTINGS\n"
        "from kaist_kit.cli import app, main\n"
        "assert isinstance(evaluate, types.FunctionType) and evaluate.__module__ == 'kaist_kit.metrics.evaluate'\n"
        "assert kaist_kit.evaluate is evaluate and 'evaluate' in dir(kaist_kit)\n"
        "assert isinstance(app, typer.Typer)\n"
        "names = [c.name for c in typer.main.get_command(app).commands.values()]\n"
        "assert 'eval' in names and 'convert' in names and 'host' in names, names\n"
        "assert sorted(kaist_kit.__all__) == sorted(set(kaist_kit.__all__))\n"
        "[getattr(kaist_kit, name) for name in kaist_kit.__all__]\n"
        "print('ok')"
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_the_verb_table_names_each_verb_with_the_module_that_registers_it():
    import typer

    from kaist_kit.cli import app
    from kaist_kit.cli.verbs import MODULES

    listed = {verb: module for module, verbs in MODULES.items() for verb in verbs}
    registered = typer.main.get_command(app).commands
    assert sorted(listed) == sorted(registered)
    for name, command in registered.items():
        callback = command.callback if command.callback is not None else next(iter(command.commands.values())).callback
        assert callback.__module__ == f"kaist_kit.cli.{listed[name]}", name
    # --help lists the verbs in the table's order, the order of the pipeline (typer lists groups last)
    verbs = [name for name, command in registered.items() if not hasattr(command, "commands")]
    assert verbs == [verb for verb in listed if verb in verbs]


@pytest.mark.parametrize(
    "args, imported, not_imported",
    [
        (["--version"], [], ["kaist_kit.cli.scoring", "kaist_kit.cli.data", "numpy"]),
        (["eval", "--help"], ["kaist_kit.cli.scoring"], ["kaist_kit.cli.data", "kaist_kit.cli.hosting"]),
        (["host", "evalai", "--help"], ["kaist_kit.cli.hosting"], ["kaist_kit.cli.scoring"]),
        (["--help"], ["kaist_kit.cli.scoring", "kaist_kit.cli.demo"], []),
        (["evl"], ["kaist_kit.cli.scoring", "kaist_kit.cli.demo"], []),  # a typo: every verb, to suggest one
    ],
)
def test_the_command_imports_the_module_of_its_verb_alone(args, imported, not_imported):
    proc = python(
        "import atexit, sys\n"
        "atexit.register(lambda: print(' '.join(sorted(sys.modules)), file=sys.stderr))\n"
        "from kaist_kit.cli import main\n"
        "sys.argv = ['kaist-kit', *sys.argv[1:]]\n"
        "main()",
        *args,
    )
    modules = set(proc.stderr.strip().splitlines()[-1].split())
    assert proc.returncode in (0, 2), proc.stderr
    assert all(m in modules for m in imported) and not any(m in modules for m in not_imported), proc.stderr[-500:]


# A command whose start stops inside an import of the kit (once the entry point has begun), or whose end
# stops in an exit handler, until the test interrupts it.
STALLED = """
import atexit, os, sys, time
marker, where = sys.argv[1], sys.argv[2]

def stall():
    open(marker, "w").close()
    time.sleep(30)

if where == "import":
    class Slow:
        def find_spec(self, name, path=None, target=None):
            if name == "kaist_kit.cli.app":
                stall()
            return None
    sys.meta_path.insert(0, Slow())
elif where == "exit":
    atexit.register(stall)
from kaist_kit.cli import main
sys.argv = ["kaist-kit", "--version"]
main()
"""


def as_from_a_terminal():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@POSIX
@pytest.mark.parametrize("where", ["import", "exit"])
@pytest.mark.parametrize("signal_name, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_an_interrupt_while_the_command_starts_or_ends_is_no_traceback(tmp_path, where, signal_name, code):
    marker = tmp_path / "stalled"
    proc = subprocess.Popen(
        [sys.executable, "-c", STALLED, str(marker), where],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.exists(), "the command did not reach the stalled step"
        proc.send_signal(getattr(signal, signal_name))
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == code, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert err.strip() in ("", "terminated")
    if where == "exit":
        assert out.strip() == "kaist-kit 0.1.0"  # the command's output, written before the interrupt


@POSIX
def test_a_second_interrupt_ends_the_process_at_once(tmp_path):
    """Ctrl-C twice: the first ends the command cleanly; the second, while it cleans up, ends the process
    at once, quietly."""
    code = """
import sys, time
import importlib
app = importlib.import_module("kaist_kit.cli.app")
marker = sys.argv[1]
def slow_cleanup():
    try:
        open(marker, "w").close()
        time.sleep(30)
    finally:
        open(marker + ".cleaning", "w").close()
        time.sleep(30)
app.run = slow_cleanup
from kaist_kit.cli import main
sys.argv = ["kaist-kit", "--version"]
main()
"""
    marker = tmp_path / "working"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(marker)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )
    try:
        for step in (marker, Path(f"{marker}.cleaning")):
            deadline = time.monotonic() + 60
            while not step.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert step.exists()
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err, err


def test_main_called_by_other_code_gives_the_signals_back():
    from kaist_kit.cli import main

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    old = sys.argv
    sys.argv = ["kaist-kit", "--version"]
    try:
        with pytest.raises(SystemExit) as stopped:
            main()
    finally:
        sys.argv = old
    assert stopped.value.code == 0
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
