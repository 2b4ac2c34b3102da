"""A package's public names imported on first use (PEP 562).

`import kaist_kit`, which the command does before anything else, then imports nothing but this module:
numpy, the readers and the evaluator are imported when a name that needs them is first used. That
keeps the command's start short, and lets it take SIGINT and SIGTERM before its slow imports begin
(see `kaist_kit.cli.console`).
"""

from __future__ import annotations

import os
import sys
from importlib import import_module
from types import ModuleType


def export_lazily(package: str, exports: dict[str, str]) -> None:
    """Give the package named ``package`` the public names ``exports`` (each name -> the module it comes
    from, relative to the package, e.g. ".detections"), each imported on first use and kept."""
    module = sys.modules[package]
    folder = os.path.dirname(module.__file__)

    def load(name: str):
        return getattr(import_module(exports[name], package), name)

    def __getattr__(name: str):
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = load(name)
        setattr(module, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(module), *exports})

    # A name that is also a submodule's (`kaist_kit.metrics.evaluate`, the function, and its module): importing
    # the submodule sets the package's attribute to the module, whoever imports it first, so
    # `from kaist_kit import evaluate` would then give the module. A property of the package's class
    # keeps the name on its export, and leaves the module in sys.modules.
    shadowed = [
        name
        for name in exports
        if os.path.isfile(os.path.join(folder, f"{name}.py")) or os.path.isdir(os.path.join(folder, name))
    ]
    if shadowed:
        properties = {name: property(lambda self, name=name: load(name), lambda self, value: None) for name in shadowed}
        module.__class__ = type("Package", (ModuleType,), properties)
    module.__getattr__ = __getattr__
    module.__dir__ = __dir__
    module.__all__ = sorted(exports)
