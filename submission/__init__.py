"""Packaging, validating and self-scoring challenge entries (`kaist-kit submit`).

``package(result, "submission.zip", gt)`` writes a zip the leaderboard scores correctly, with a
manifest; ``check(path, gt)`` says what the leaderboard would do with a file as it is.
"""

from .checks import CRASH, MISSCORE, NOTE, WARNING, Finding, Inspection, inspect_result
from .submit import CheckReport, PackageReport, check, package

__all__ = [
    "CRASH",
    "MISSCORE",
    "NOTE",
    "WARNING",
    "CheckReport",
    "Finding",
    "Inspection",
    "PackageReport",
    "check",
    "inspect_result",
    "package",
]
