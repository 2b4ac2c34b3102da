"""The platforms' configurations as their validators read them: each key's type, declared.

EvalAI reads challenge_config.yaml through Django REST framework serializers of its models
(Cloud-CV/EvalAI: apps/challenges/challenge_config_utils.py, serializers.py, models.py; Django 2.2,
DRF 3.10); Codabench reads competition.yaml with its V2 unpacker, then its serializers
(codalab/codabench: src/apps/competitions/unpackers/v2.py, api/serializers/, leaderboards/models.py).
A value is valid here when it is valid there, and read as they read it: DRF's integer field takes
``5``, ``"5"`` and ``5.0``, not ``"five"`` or ``true``; its boolean field takes ``true``, ``"false"``,
``"on"`` and ``0`` and refuses ``"sometimes"``; its date field takes a YAML timestamp or an ISO 8601
text and refuses a bare date; its text field takes numbers (as text) but not ``true`` or a list.
`validate` walks a configuration against its schema and says, one line each, what either platform
would refuse; nothing in it raises on any value.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

# DRF 3.10's BooleanField (True, 1 and 1.0 are one set member, as False, 0 and 0.0 are).
TRUE_VALUES = {"t", "T", "y", "Y", "yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "1", True}
FALSE_VALUES = {"f", "F", "n", "N", "no", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "0", False}
# Django 2.2's parse_datetime (django.utils.dateparse), which DRF's DateTimeField reads ISO 8601 with.
_DJANGO_DATETIME = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6})\d{0,6})?)?"
    r"(Z|[+-]\d{2}(?::?\d{2})?)?\Z"
)
_DRF_DECIMAL = re.compile(r"\.0*\s*\Z")


def drf_bool(value: object) -> bool | None:
    """The boolean DRF reads ``value`` as, or None when it refuses it."""
    try:
        if value in TRUE_VALUES:
            return True
        if value in FALSE_VALUES:
            return False
    except TypeError:  # a list or a mapping: unhashable
        pass
    return None


def drf_int(value: object) -> int | None:
    """The integer DRF's IntegerField reads ``value`` as, or None when it refuses it."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    if isinstance(value, str) and len(value) > 1000:
        return None
    try:
        return int(_DRF_DECIMAL.sub("", str(value)))
    except (ValueError, OverflowError):
        return None


def drf_datetime(value: object) -> bool:
    """Whether DRF's DateTimeField (ISO 8601, Django 2.2) reads ``value``."""
    if isinstance(value, dt.datetime):
        return True
    if not isinstance(value, str):
        return False  # a bare date is refused ("expected a datetime but got a date"), a number too
    found = _DJANGO_DATETIME.match(value)
    if not found:
        return False
    year, month, day, hour, minute, second, micro, _ = found.groups()
    try:
        dt.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), int(micro or 0))
    except ValueError:
        return False
    return True


def codabench_date(value: object) -> bool:
    """Whether Codabench's unpacker reads ``value`` as a date (`get_datetime`: a date, a datetime, or a
    text that dateutil's parser reads)."""
    if isinstance(value, (dt.date, dt.datetime)):
        return True
    if not isinstance(value, str):
        return False
    try:
        from dateutil import parser
    except ImportError:  # dateutil comes with matplotlib, a dependency of the kit
        return drf_datetime(value) or _iso_date(value)
    try:
        parser.parse(value)
    except (ValueError, OverflowError):
        return False
    return True


def _iso_date(value: str) -> bool:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Spec:
    """A value's type: ``expected`` says it in words, ``accepts`` tells a value."""

    expected: str
    accepts: object  # callable: value -> bool

    def problems(self, value: object, at: str) -> list[str]:
        return [] if self.accepts(value) else [f"{at} is {shown(value)}, not {self.expected}"]


def Int(low: int | None = 0, high: int | None = None) -> Spec:  # noqa: N802 - a spec reads as a type
    def accepts(value):
        number = drf_int(value)
        return number is not None and (low is None or number >= low) and (high is None or number <= high)

    span = f" from {low}" if low is not None else ""
    return Spec(f"an integer{span}" + (f" to {high}" if high is not None else ""), accepts)


def Index() -> Spec:  # noqa: N802
    """An index that Codabench compares with Python's ``==`` and uses as a key: a true integer."""
    return Spec("an integer from 0", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0)


def Bool() -> Spec:  # noqa: N802
    return Spec("true or false", lambda v: drf_bool(v) is not None)


def YamlBool() -> Spec:  # noqa: N802
    """A boolean that is read by its truth (EvalAI's page reads any text, "false" too, as true)."""
    return Spec("true or false (a YAML boolean)", lambda v: isinstance(v, bool))


def Text(max_length: int | None = None, blank: bool = False) -> Spec:  # noqa: N802
    def accepts(value):
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return False
        text = str(value).strip()
        return (blank or bool(text)) and (max_length is None or len(text) <= max_length)

    limit = f" of at most {max_length} characters" if max_length else ""
    return Spec(f"a text{limit}", accepts)


def Choice(*choices: object, blank: bool = False) -> Spec:  # noqa: N802
    """DRF's ChoiceField: the value's text is one of the choices' texts (or empty, for a field that may be
    blank)."""
    texts = {str(c) for c in choices} | ({""} if blank else set())

    def accepts(value):
        return value is not None and not isinstance(value, (list, dict)) and str(value) in texts

    return Spec("one of " + ", ".join(map(repr, choices)), accepts)


def DateTime() -> Spec:  # noqa: N802
    return Spec("a date and time, YYYY-MM-DD HH:MM:SS", drf_datetime)


def Date() -> Spec:  # noqa: N802
    return Spec("a date Codabench reads", codabench_date)


def FileName() -> Spec:  # noqa: N802
    """A file of the bundle (`check` then finds it inside the bundle, or refuses it)."""
    return Spec("a file's path in the bundle", lambda v: isinstance(v, str) and bool(v.strip()))


ANY = Spec("anything", lambda v: True)


@dataclass(frozen=True)
class Mapping:
    fields: dict  # key -> Spec, Mapping, ListOf or MapOf
    required: tuple[str, ...] = ()

    def problems(self, value: object, at: str) -> list[str]:
        if not isinstance(value, dict):
            return [f"{at} is {shown(value)}, not a mapping"]
        found = [f"{_join(at, key)} is missing" for key in self.required if key not in value]
        for key, spec in self.fields.items():
            if key in value:
                found += spec.problems(value[key], _join(at, key))
        return found


@dataclass(frozen=True)
class ListOf:
    item: object
    at_least: int = 0

    def problems(self, value: object, at: str) -> list[str]:
        if not isinstance(value, list):
            return [f"{at} is {shown(value)}, not a list"]
        if len(value) < self.at_least:
            return [f"{at} is an empty list"]
        return [line for k, item in enumerate(value) for line in self.item.problems(item, f"{at}[{k}]")]


@dataclass(frozen=True)
class MapOf:
    """A mapping of any keys, each value of one spec."""

    value: object
    key: Spec = field(default_factory=lambda: Text())

    def problems(self, value: object, at: str) -> list[str]:
        if not isinstance(value, dict):
            return [f"{at} is {shown(value)}, not a mapping"]
        found = []
        for key, item in value.items():
            found += self.key.problems(key, f"{at} key")
            found += self.value.problems(item, _join(at, str(key)))
        return found


def _join(at: str, key: object) -> str:
    return f"{at}.{key}" if at else str(key)


def validate(data: object, schema: Mapping) -> list[str]:
    """What the platform's validator refuses in ``data``, one line each ("key.path is X, not Y")."""
    return schema.problems(data, "")


# --- EvalAI: challenge_config.yaml ----------------------------------------------------------------

# The labels are the keys of evaluate()'s result, texts: EvalAI keeps the schema as JSON, as written.
EVALAI_LABELS = ListOf(Spec("a text", lambda v: isinstance(v, str) and bool(v.strip())), at_least=1)
EVALAI = Mapping(
    {
        "title": Text(100),
        "start_date": DateTime(),
        "end_date": DateTime(),
        "published": Bool(),
        "remote_evaluation": Bool(),
        "is_docker_based": Bool(),
        "is_static_dataset_code_upload": Bool(),
        "worker_python_version": Choice("3.7", "3.8", "3.9", blank=True),  # blank: the default, 3.9
        **{key: FileName() for key in ("description", "evaluation_details", "terms_and_conditions")},
        **{key: FileName() for key in ("submission_guidelines", "image", "evaluation_script")},
        "leaderboard": ListOf(
            Mapping(
                {
                    "id": Int(None),
                    "schema": Mapping(
                        {
                            "labels": EVALAI_LABELS,
                            "default_order_by": Spec("a label", lambda v: isinstance(v, str)),
                            "metadata": MapOf(Mapping({"sort_ascending": YamlBool(), "description": Text(blank=True)})),
                        },
                        ("labels", "default_order_by"),
                    ),
                },
                ("id", "schema"),
            ),
            at_least=1,
        ),
        "challenge_phases": ListOf(
            Mapping(
                {
                    "id": Int(None),
                    "name": Text(100),
                    "codename": Text(100),
                    "description": FileName(),
                    "test_annotation_file": FileName(),
                    "start_date": DateTime(),
                    "end_date": DateTime(),
                    **{
                        key: Bool()
                        for key in (
                            "leaderboard_public",
                            "is_public",
                            "is_submission_public",
                            "is_restricted_to_select_one_submission",
                            "is_partial_submission_evaluation_enabled",
                            "disable_logs",
                        )
                    },
                    **{
                        key: Int()
                        for key in (
                            "max_submissions_per_day",
                            "max_submissions_per_month",
                            "max_submissions",
                            "max_concurrent_submissions_allowed",
                        )
                    },
                    "allowed_submission_file_types": Text(),
                },
                ("id", "name", "codename", "start_date", "end_date"),
            ),
            at_least=1,
        ),
        "dataset_splits": ListOf(
            Mapping({"id": Int(None), "name": Text(100), "codename": Text(100)}, ("id", "name", "codename")),
            at_least=1,
        ),
        "challenge_phase_splits": ListOf(
            Mapping(
                {
                    "challenge_phase_id": Int(None),
                    "leaderboard_id": Int(None),
                    "dataset_split_id": Int(None),
                    "visibility": Choice(1, 2, 3),
                    "leaderboard_decimal_precision": Int(),
                    **{
                        key: Bool()
                        for key in (
                            "is_leaderboard_order_descending",
                            "show_leaderboard_by_latest_submission",
                            "show_execution_time",
                            "show_scores_on_leaderboard",
                        )
                    },
                },
                ("challenge_phase_id", "leaderboard_id", "dataset_split_id"),
            ),
            at_least=1,
        ),
    },
    ("title", "start_date", "end_date", "evaluation_script", "leaderboard", "challenge_phases"),
)


# --- Codabench: competition.yaml (version 2) ------------------------------------------------------

CODABENCH = Mapping(
    {
        "title": Text(256),
        "image": FileName(),
        "terms": FileName(),
        "docker_image": Text(128),
        "pages": ListOf(Mapping({"title": Text(blank=True), "file": FileName()}, ("file",))),
        "phases": ListOf(
            Mapping(
                {
                    "index": Index(),
                    "name": Text(256),
                    "start": Date(),
                    "end": Date(),
                    "max_submissions_per_day": Int(),
                    "max_submissions": Int(),
                    "execution_time_limit": Int(),
                    "tasks": ListOf(Index(), at_least=1),
                    "public_data": FileName(),
                    "starting_kit": FileName(),
                    **{key: Bool() for key in ("auto_migrate_to_this_phase", "hide_output")},
                },
                ("start", "tasks"),
            ),
            at_least=1,
        ),
        "tasks": ListOf(
            Mapping(
                {
                    "index": Index(),
                    "name": Text(blank=True),
                    **{
                        key: FileName()
                        for key in ("scoring_program", "reference_data", "ingestion_program", "input_data")
                    },
                },
                ("index",),
            ),
            at_least=1,
        ),
        "leaderboards": ListOf(
            Mapping(
                {
                    "title": Text(64),
                    "key": Text(36),
                    "primary_index": Int(),
                    "hidden": Bool(),
                    "columns": ListOf(
                        Mapping(
                            {
                                "title": Text(36),
                                "key": Text(36),
                                "index": Int(),
                                "sorting": Choice("desc", "asc"),
                                "precision": Int(None),
                                "hidden": Bool(),
                            },
                            ("title", "key", "index"),
                        ),
                        at_least=1,
                    ),
                },
                ("title", "key", "columns"),
            ),
            at_least=1,
        ),
    },
    ("title", "image", "terms", "pages", "phases", "tasks", "leaderboards"),
)
