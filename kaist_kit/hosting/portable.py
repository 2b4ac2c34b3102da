"""What the core copied into a bundle may use: Python 3.7's syntax and library, evaluated at run time.

The kit itself needs Python 3.10; the copy of its core that a platform's worker runs must import and
score on Python 3.7 to 3.12 with the worker's numpy (`platforms`). Annotations are never evaluated
there (every module has ``from __future__ import annotations``), so ``X | Y`` and ``list[int]`` are
fine in them; anywhere else they, and the syntax and library names below, are Python 3.8 to 3.12's.
`bundle.core_modules` refuses a module that uses one, so that a change to the core cannot silently
break every hosted challenge; the tests then run the copy in each worker's interpreter and numpy, which
is the real arbiter (this list is what those runs taught, and the usual suspects).
"""

from __future__ import annotations

import ast

# Names of modules (and types: None for any) that Python 3.7 (or numpy 1.16) does not have.
NEWER_ATTRIBUTES = {
    (None, "removeprefix"): "3.9",
    (None, "removesuffix"): "3.9",
    (None, "bit_count"): "3.10",
    ("functools", "cache"): "3.9",
    ("functools", "cached_property"): "3.8",
    ("math", "prod"): "3.8",
    ("math", "isqrt"): "3.8",
    ("math", "dist"): "3.8",
    ("math", "comb"): "3.8",
    ("math", "perm"): "3.8",
    ("math", "lcm"): "3.9",
    ("math", "nextafter"): "3.9",
    ("math", "ulp"): "3.9",
    ("itertools", "pairwise"): "3.10",
    ("itertools", "batched"): "3.12",
    ("statistics", "fmean"): "3.8",
    ("sys", "stdlib_module_names"): "3.10",
    ("hashlib", "file_digest"): "3.11",
    ("os", "waitstatus_to_exitcode"): "3.9",
    ("shlex", "join"): "3.8",
    ("random", "default_rng"): "numpy 1.17",
}
NEWER_TYPING = {
    "Protocol": "3.8",
    "Literal": "3.8",
    "Final": "3.8",
    "TypedDict": "3.8",
    "get_origin": "3.8",
    "get_args": "3.8",
    "ParamSpec": "3.10",
    "TypeAlias": "3.10",
    "Concatenate": "3.10",
    "TypeGuard": "3.10",
    "Self": "3.11",
    "Never": "3.11",
    "assert_never": "3.11",
    "override": "3.12",
}
NEWER_MODULES = {
    "importlib.metadata": "3.8",
    "zoneinfo": "3.9",
    "graphlib": "3.9",
    "tomllib": "3.11",
}
# Keyword arguments of calls that Python 3.7 refuses.
NEWER_KEYWORDS = {"strict": "3.10 (zip)", "slots": "3.10 (dataclass)", "kw_only": "3.10 (dataclass)"}
# Builtins and collections.abc names that are subscriptable at run time from 3.9 only.
GENERIC_NAMES = {"list", "dict", "tuple", "set", "frozenset", "type"}
ABC_NAMES = {
    "Callable",
    "Iterable",
    "Iterator",
    "Sequence",
    "Mapping",
    "MutableMapping",
    "Collection",
    "Generator",
    "Set",
    "MutableSequence",
}


def problems(source: bytes | str, name: str) -> list[str]:
    """What in the module ``name`` needs a Python newer than 3.7 (or a numpy newer than the workers'),
    one line each with its line number; nothing for a portable module."""
    try:
        tree = ast.parse(source, name, feature_version=(3, 7))
    except SyntaxError as exc:
        return [f"{name}:{exc.lineno}: syntax of a Python newer than 3.7 ({exc.msg})"]
    found = []
    has_future = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(a.name == "annotations" for a in node.names)
        for node in tree.body
    )
    annotations = _annotation_nodes(tree)
    guarded = _type_checking_nodes(tree)
    abc_imported = set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "collections.abc":
                abc_imported |= {a.asname or a.name for a in node.names}
            if node.module == "typing":
                for alias in node.names:
                    if alias.name in NEWER_TYPING:
                        found.append(_line(name, node, f"typing.{alias.name} is Python {NEWER_TYPING[alias.name]}'s"))
            if node.module in NEWER_MODULES:
                found.append(_line(name, node, f"{node.module} is Python {NEWER_MODULES[node.module]}'s"))
            for alias in node.names:
                since = NEWER_ATTRIBUTES.get((node.module.rpartition(".")[2], alias.name))
                if since:
                    found.append(_line(name, node, f"{node.module}.{alias.name} is {_version(since)}'s"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in NEWER_MODULES:
                    found.append(_line(name, node, f"{alias.name} is Python {NEWER_MODULES[alias.name]}'s"))
        elif isinstance(node, ast.Attribute):
            base = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", None)
            since = NEWER_ATTRIBUTES.get((base, node.attr)) or NEWER_ATTRIBUTES.get((None, node.attr))
            if since:
                found.append(_line(name, node, f".{node.attr} is {_version(since)}'s"))
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in NEWER_KEYWORDS:
                    found.append(
                        _line(name, node, f"the argument {keyword.arg}= is Python {NEWER_KEYWORDS[keyword.arg]}'s")
                    )
    for node in ast.walk(tree):
        if id(node) in annotations or id(node) in guarded:
            continue
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and _is_type(node, abc_imported):
            found.append(_line(name, node, "X | Y of types is evaluated here: Python 3.10's (typing.Union)"))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            if node.value.id in GENERIC_NAMES or node.value.id in abc_imported:
                found.append(_line(name, node, f"{node.value.id}[...] is evaluated here: Python 3.9's (typing's)"))
    if not has_future and annotations:
        found.append(f"{name}:1: no `from __future__ import annotations`: its annotations would be evaluated")
    return sorted(set(found), key=lambda line: int(line.split(":")[1]))


def _version(text: str) -> str:
    return text if text.startswith("numpy") else f"Python {text}"


def _line(name: str, node: ast.AST, message: str) -> str:
    return f"{name}:{getattr(node, 'lineno', 1)}: {message}"


def _annotation_nodes(tree: ast.AST) -> set[int]:
    """The nodes of every annotation (never evaluated under ``from __future__ import annotations``)."""
    roots = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            roots += [a.annotation for a in every if a is not None and a.annotation is not None]
            if node.returns is not None:
                roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    return {id(inner) for root in roots for inner in ast.walk(root)}


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:``, which never run, and under a test of ``sys.version_info``
    (``if sys.version_info >= (3, 10) and ...:``), which run on the versions that have what they use."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _guarded(node.test):
            for statement in node.body:
                found |= {id(inner) for inner in ast.walk(statement)}
    return found


def _guarded(test: ast.AST) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Name) and node.id == "TYPE_CHECKING":
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("TYPE_CHECKING", "version_info"):
            return True
    return False


def _is_type(node: ast.AST, abc_imported: set[str]) -> bool:
    """Whether an operand of ``|`` is a type (a builtin type, None, a subscripted generic, an ABC)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_type(node.left, abc_imported) or _is_type(node.right, abc_imported)
    if isinstance(node, ast.Name):
        return node.id in {"int", "float", "str", "bytes", "bool", "complex", *GENERIC_NAMES} | abc_imported
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Name) and (node.value.id in GENERIC_NAMES or node.value.id in abc_imported)
    return False
