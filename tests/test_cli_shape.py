"""The shape of the command's code: each verb parses, makes one library call and renders, so no verb's
body runs over 40 lines; a helper of `kaist_kit/cli/` takes the request, not its pieces, so none takes
more than 8 parameters (a verb's own parameters are its options and do not count)."""

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parent.parent / "kaist_kit" / "cli"
MAX_VERB_LINES = 40
MAX_HELPER_PARAMETERS = 8


def is_verb(function: ast.FunctionDef) -> bool:
    """Registered on a typer app: `@app.command(...)` or `@app.callback(...)`."""
    return any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in ("command", "callback")
        for d in function.decorator_list
    )


def body_lines(function: ast.FunctionDef) -> int:
    """The lines of a function's body after its docstring, blank lines and comments within included."""
    body = function.body
    if (
        isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0


def parameter_count(function: ast.FunctionDef) -> int:
    a = function.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)


def shape_faults(source: str, where: str) -> list[str]:
    """Each verb over 40 lines and each helper (nested ones included) over 8 parameters, one line each."""
    faults = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if is_verb(node):
            if body_lines(node) > MAX_VERB_LINES:
                faults.append(f"{where}:{node.lineno} verb {node.name}: a body of {body_lines(node)} lines")
        elif parameter_count(node) > MAX_HELPER_PARAMETERS:
            faults.append(f"{where}:{node.lineno} {node.name}: {parameter_count(node)} parameters")
    return faults


def test_no_verb_over_40_lines_and_no_helper_over_8_parameters():
    modules = sorted(CLI.glob("*.py"))
    assert len(modules) > 10
    faults = [fault for path in modules for fault in shape_faults(path.read_text(), path.name)]
    assert not faults, "\n".join(faults)


def test_the_rule_reads_every_verb_the_command_has():
    """Every function the application calls for a verb (its groups' included) is one the rule measures."""
    from kaist_kit.cli.verbs import load

    app = load()
    callbacks = [info.callback for info in app.registered_commands]
    for group in app.registered_groups:
        own = group.typer_instance.registered_callback
        callbacks += [own.callback] if own else []
        callbacks += [info.callback for info in group.typer_instance.registered_commands]
    measured = {
        node.name
        for path in CLI.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef) and is_verb(node)
    }
    assert len(callbacks) > 20
    assert {c.__name__ for c in callbacks} <= measured


@pytest.mark.parametrize(
    ("source", "fault"),
    [
        ("@app.command('x')\ndef x(a, b):\n" + "    a = 1\n" * 41, "verb x: a body of 41 lines"),
        ("def helper(a, b, c, d, e, f, g, h, i):\n    pass\n", "helper: 9 parameters"),
        ("def outer():\n    def inner(*a, b, c, d, e, f, g, h, **k):\n        pass\n", "inner: 9 parameters"),
    ],
)
def test_a_long_verb_or_a_helper_of_many_parameters_is_a_fault(source, fault):
    (found,) = shape_faults(source, "m.py")
    assert found.endswith(fault)


def test_a_verb_of_40_lines_and_its_docstring_and_a_verb_of_many_options_pass():
    verb = "@app.command('x')\ndef x(" + ", ".join(f"o{i}" for i in range(20)) + '):\n    """Help."""\n'
    assert shape_faults(verb + "    a = 1\n" * 40, "m.py") == []
