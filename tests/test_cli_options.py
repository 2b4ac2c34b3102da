"""Option values are checked where they enter, and the help fits 80 columns.

Every numeric option of every verb, found by walking the command line (so that a verb added later
is covered too), gets extreme and random values: a value outside the option's declared range is one
line naming the option and what it accepts, exit code 2, before any work; a value inside it passes
(each verb then stops at a missing input file, which shows that nothing else objected). No value
gives a traceback. Runs in-process; hypothesis draws with a fixed seed.
"""

import io
import math
import sys
from contextlib import redirect_stderr, redirect_stdout

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.core import TyperGroup

from kaist_kit.cli import app, main
from kaist_kit.cli.command import Real, Whole

EXTREMES = [
    "0",
    "-1",
    "1",
    str(2**63),
    str(-(2**63)),
    "1e308",
    "-1e308",
    "1e-400",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "1.5",
    "",
    " ",
    "x",
    "0x10",
    "1_000",
    "١",
    "9" * 400,
]
# Each verb with arguments that let its options be parsed and then stop it at once: inputs that do
# not exist (or, for the folders a verb writes into, a file).
BASE = {
    "convert": ["improved", "{missing}", "--out", "{tmp}/out.json"],
    "synth": ["{file}"],
    "stats": ["{missing}"],
    "show": ["set06/V000/I00000", "--gt", "{missing}"],
    "fetch": ["--to", "{file}/inside"],
    "eval": ["{missing}", "--gt", "{missing}"],
    "diagnose": ["{missing}", "--gt", "{missing}"],
    "compare": ["{missing}", "{missing}2", "--gt", "{missing}"],
    "submit": ["{missing}", "--out", "{tmp}/s.json", "--gt", "{missing}"],
    "train": ["{missing}"],
    "test": ["{missing}", "{missing}", "--out", "{tmp}/r.json"],
    "infer": ["{missing}", "{missing}", "{missing}", "{missing}", "--out", "{tmp}/f.png"],
    "init-checkpoint": ["{missing}", "{missing}", "--out", "{tmp}/i.pth"],
    "simulate": ["--gt", "{missing}", "--out", "{tmp}/sim.json"],
    "demo": ["--out", "{file}"],
    "trainset": ["val-02", "--annotations", "{missing}", "--out", "{tmp}/t.json"],
    "check-data": ["{missing}"],
    "leaderboard": ["{missing}", "--gt", "{missing}", "--out", "{tmp}/site"],
    "host evalai": ["--gt", "{missing}", "--out", "{tmp}/bundle"],
    "host codabench": ["--gt", "{missing}", "--out", "{tmp}/bundle.zip"],
    "host check": ["{missing}"],
    "zoo fetch": ["--all", "--from", "{missing}"],
}
# Options whose text holds numbers the verb reads itself: each option, a good value and the range
# its message names.
TEXT_NUMBERS = {
    "--size": ("320x256", "pixels"),
    "--image-size": ("640x512", "pixels"),
    "--shift-lwir": ("4,0", "DX,DY"),
    "--fppi-range": ("1e-4:1", "FPPI range"),
}


def commands():
    """Every verb by its words (`eval`, `host evalai`), those of sub-groups included."""
    found, groups = {}, [("", typer.main.get_command(app))]
    while groups:
        prefix, group = groups.pop()
        for name, command in group.commands.items():
            if isinstance(command, TyperGroup):
                groups.append((f"{prefix}{name} ", command))
            else:
                found[prefix + name] = command
    return found


def numeric_options():
    """(verb, option, parser) of every option with a Whole or Real parser."""
    found = []
    for verb, command in commands().items():
        for param in command.params:
            parser = param.type_descriptor.parameter_info.parser
            if isinstance(parser, (Whole, Real)) and param.opts[0].startswith("--"):
                found.append((verb, param.opts[0], parser))
    return found


def base(verb, tmp_path) -> list[str]:
    """The arguments that stop ``verb`` (BASE) in ``tmp_path``."""
    missing, file = tmp_path / "missing_result.txt", tmp_path / "a-file"
    file.write_text("")
    return [a.format(missing=missing, file=file, tmp=tmp_path) for a in BASE[verb]]


def run(args, tmp_path=None) -> tuple[int, str]:
    """Exit code and standard error of the command line run in this process."""
    err, out = io.StringIO(), io.StringIO()
    old = sys.argv
    sys.argv = ["kaist-kit", *args]
    try:
        with redirect_stderr(err), redirect_stdout(out):  # the consoles write to sys.stderr as it is then
            main()
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.argv = old
    return code, err.getvalue()


def inside(parser, text: str) -> bool:
    try:
        parser(text)
    except typer.BadParameter:
        return False
    return True


def check(verb, option, value, tmp_path, parser=None) -> None:
    code, err = run([*verb.split(), *base(verb, tmp_path), option, value])
    lines = err.strip().splitlines()
    assert "Traceback" not in err, (verb, option, value, err)
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (verb, option, value, err)
    named = option in lines[0]
    if parser is not None:
        assert named != inside(parser, value), (verb, option, value, lines[0])
        if named:
            assert parser.accepts in lines[0], (lines[0], parser.accepts)


def test_every_verb_has_its_stopping_arguments():
    assert set(BASE) == set(commands()), "a verb without arguments to stop it: add it to BASE"


def test_numeric_options_are_found():
    found = {(verb, option) for verb, option, _ in numeric_options()}
    for expected in [
        ("compare", "--resamples"),
        ("diagnose", "--seed"),
        ("eval", "--id-offset"),
        ("eval", "--iou"),
        ("synth", "--train"),
        ("synth", "--seed"),
        ("demo", "--frames"),
        ("train", "--gpus"),
        ("diagnose", "--fppi"),
        ("submit", "--id-offset"),
        ("show", "--score-threshold"),
    ]:
        assert expected in found


# Ids the same in every process (a parser's repr holds its address), as pytest-xdist's workers must collect alike.
@pytest.mark.parametrize(
    "verb, option, parser", numeric_options(), ids=lambda x: x if isinstance(x, str) else type(x).__name__
)
def test_extreme_values_of_numeric_options(verb, option, parser, tmp_path):
    for value in EXTREMES + [str(parser.low), str(parser.high)]:
        check(verb, option, value, tmp_path, parser)


@settings(derandomize=True, deadline=None, max_examples=150, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_values_of_numeric_options(tmp_path_factory, data):
    verb, option, parser = data.draw(st.sampled_from(numeric_options()))
    value = data.draw(
        st.one_of(
            st.integers(-(2**70), 2**70).map(str), st.floats().map(repr), st.sampled_from(EXTREMES), st.text(max_size=8)
        )
    )
    if value.startswith("-") and not value[1:2].isdigit() and value not in EXTREMES:
        return  # an option name, not a value
    check(verb, option, value, tmp_path_factory.mktemp("v"), parser)


@pytest.mark.parametrize("option", sorted(TEXT_NUMBERS))
def test_numbers_in_option_text(option, tmp_path):
    good, named = TEXT_NUMBERS[option]
    verbs = [verb for verb, command in commands().items() if any(option in p.opts for p in command.params)]
    assert verbs
    for verb in verbs:
        code, err = run([*verb.split(), *base(verb, tmp_path), option, good])
        assert code == 2 and option not in err, (verb, err)
        bad = [
            "0x0",
            "-1x5",
            f"{2**63}x5",
            "1e308x5",
            "nanxnan",
            "infx1",
            "x",
            ",",
            "1,",
            f"{2**63},0",
            "nan,0",
            "0:1",
            "-1:1",
            "nan:1",
            "1:inf",
            "1e-400:1",
            "1:0.5",
            ":",
        ]
        bad = [
            b
            for b in bad
            if ("x" in b) == (option in ("--size", "--image-size"))
            or ("," in b) == (option == "--shift-lwir")
            or (":" in b) == (option == "--fppi-range")
        ]
        for value in bad:
            code, err = run([*verb.split(), *base(verb, tmp_path), option, value])
            lines = err.strip().splitlines()
            assert code == 2 and len(lines) == 1 and option in lines[0] and named in lines[0], (verb, value, err)


def test_bootstrap_sizes_are_bounded():
    """--resamples past the bound would allocate resamples x images counts (1.6 TiB at 10^8 on the
    2,252 test images): refused before any work."""
    parsers = {(verb, option): parser for verb, option, parser in numeric_options()}
    for verb in ("compare", "diagnose"):
        resamples = parsers[verb, "--resamples"]
        assert resamples.low == 1 and resamples.high * 2252 * 8 < 2**30
        assert not inside(resamples, "100000000")


def help_of(args) -> str:
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_help_fits_80_columns_and_shows_no_python_types():
    for verb in ["", "host", *commands()]:
        text = help_of(verb.split())
        for line in text.splitlines():
            assert len(line) <= 80, (verb, line)
        for label in ("<list", "<path>", "<str>", "<int>", "<float>", "Path]", "<bool>"):
            assert label not in text, (verb, label)


def test_the_list_of_verbs_gives_each_description_whole():
    for group in ("", "host"):
        listed = help_of(group.split()).split("Commands:")[1]
        text = " ".join(listed.split())
        for name, command in commands().items():
            words = name.split()
            if " ".join(words[:-1]) == group:
                first = " ".join(command.help.strip().split("\n\n")[0].split())
                assert f"{words[-1]} {first}" in text, name
        assert "..." not in listed


def test_one_line_usage_errors(tmp_path):
    for args, fragment in [
        (["eval"], "Missing argument"),
        (["eval", "x", "--frobnicate"], "No such option"),
        (["eval", "x", "--format", "xml"], "'xml' is not one of table, json, csv, markdown"),
        (["no-such-verb"], "No such command"),
    ]:
        code, err = run(args, tmp_path)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and fragment in lines[0], (args, err)


def test_parsers_say_their_range():
    assert Whole(0, 10).accepts == "a whole number from 0 to 10"
    assert Real(0, 1, low_open=True, high_open=True).accepts == "a number above 0 and below 1"
    assert math.isclose(Real(0, 1)("1e-1"), 0.1)
    for bad in ("nan", "inf", "1e400", "0x1", "", "١"):
        assert not inside(Real(-1e300, 1e300), bad)
