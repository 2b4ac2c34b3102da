"""`host check` on doctored copies of the kit's own bundles: each defect the platforms would meet is caught,
in one line, and the bundles as written pass. Configurations and caches of any shape are read against
their schema, within bounds, and nothing outside a bundle or a site is read, run or removed."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kaist_kit.errors import InputError
from kaist_kit.hosting import schema, yamlout
from kaist_kit.hosting.bundle import write_tree
from kaist_kit.hosting.check import check_bundle
from kaist_kit.hosting.codabench import write_codabench_bundle
from kaist_kit.hosting.columns import ColumnSpec
from kaist_kit.hosting.evalai import write_evalai_bundle
from kaist_kit.hosting.leaderboard import CACHE_NAME, build_site
from kaist_kit.hosting.options import HostOptions
from kaist_kit.io.read import limited

SPEC = ColumnSpec(("lamr", "ap50"), ("reasonable",), ("all", "day", "night"), ("leaderboard",))
FIXTURES = [HealthCheck.function_scoped_fixture]  # each example makes its own folder under tmp_path


def small_truth(path: Path) -> Path:
    """A KAIST-style ground truth of 6 images, one pedestrian each, by day and by night."""
    images = [
        {"id": k, "im_name": f"set0{6 + 3 * (k % 2)}/V000/I{k:05d}", "height": 512, "width": 640} for k in range(6)
    ]
    anns = [
        {"id": k + 1, "image_id": k, "category_id": 1, "bbox": [100 + k, 120, 40, 90], "height": 90, "occlusion": 0}
        for k in range(6)
    ]
    for a in anns:
        a["ignore"] = 0
    path.write_text(json.dumps({"images": images, "annotations": anns, "categories": [{"id": 1, "name": "person"}]}))
    return path


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bundles")
    gt = small_truth(folder / "test-small.json")
    write_evalai_bundle(gt, folder / "evalai", HostOptions(spec=SPEC))
    write_codabench_bundle(gt, folder / "codabench.zip", HostOptions(spec=SPEC))
    with zipfile.ZipFile(folder / "codabench.zip") as archive:
        archive.extractall(folder / "codabench")
    return folder


def copy_of(bundles: Path, name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(bundles / name, target, symlinks=True)
    return target


def edit_config(folder: Path, change) -> None:
    """Change the configuration's data and write it back as the kit writes YAML."""
    name = "challenge_config.yaml" if (folder / "challenge_config.yaml").exists() else "competition.yaml"
    data = yaml.safe_load((folder / name).read_text())
    change(data)
    (folder / name).write_text(yamlout.dump(data))


def edit_script(folder: Path, member: str, old: str, new: str) -> None:
    """Change one file of the evaluation script, in the folder and in the zip alike."""
    path = folder / "evaluation_script" / member
    text = path.read_text()
    assert old in text, (member, old)
    path.write_text(text.replace(old, new))
    with zipfile.ZipFile(folder / "evaluation_script.zip") as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    members[member] = path.read_bytes()
    with zipfile.ZipFile(folder / "evaluation_script.zip", "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def lines_of(report) -> list[str]:
    return [p.line() for p in report.problems]


def errors_of(report) -> list[str]:
    return [p.line() for p in report.problems if p.level == "error"]


# --- EvalAI: each defect on a doctored copy -----------------------------------------------------------


def test_a_script_that_needs_python_310_fails_on_the_declared_worker(bundles, tmp_path, reference_env):
    python = reference_env("evalai-py39")
    folder = copy_of(bundles, "evalai", tmp_path)
    edit_script(folder, "main.py", "sys.version_info < (3, 7)", "sys.version_info < (3, 10)")
    edit_script(folder, "main.py", "needs Python 3.7 or newer", "needs Python 3.10 or newer")
    report = check_bundle(folder, python=str(python))
    assert report.interpreter == "Python 3.9 with numpy 1.26.4"
    assert any("[mis-score]" in line and "needs Python 3.10 or newer" in line for line in lines_of(report))
    assert check_bundle(copy_of(bundles, "evalai", tmp_path / "fixed"), python=str(python)).problems == []


def test_the_declared_worker_is_found_or_said(bundles, tmp_path, monkeypatch):
    """Without an interpreter of the worker's version, the check runs in this one and says so."""
    monkeypatch.setenv("PATH", str(tmp_path))  # neither python3.9 on PATH
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))  # nor pyenv's
    report = check_bundle(bundles / "evalai")
    assert report.ok and report.ran
    (warning,) = report.problems
    assert warning.code == "worker-python" and "no Python 3.9 on this machine" in warning.message
    assert "EvalAI's worker runs Python 3.9 with numpy 1.26.4" in warning.message


def test_the_starters_route_keeps_the_script(bundles, tmp_path):
    folder = copy_of(bundles, "evalai", tmp_path)
    shutil.rmtree(folder / "evaluation_script")  # the bundle as it was: the GitHub route zips an empty folder
    (line,) = errors_of(check_bundle(folder, run=False))
    assert "[starters] no evaluation_script/ folder" in line and "empty evaluation script" in line
    folder = copy_of(bundles, "evalai", tmp_path / "stale")
    (folder / "evaluation_script" / "extra.py").write_text("x = 1\n")
    (line,) = errors_of(check_bundle(folder, run=False))
    assert "[starters]" in line and "hold different files" in line


def test_a_starters_repository_is_checked_with_the_zip_its_workflow_makes(tmp_path, bundles):
    repository = tmp_path / "repository"
    write_evalai_bundle(bundles / "test-small.json", repository, HostOptions(spec=SPEC), starters=True)
    assert not (repository / "evaluation_script.zip").exists()
    report = check_bundle(repository)
    assert report.ran and report.ok and len(report.probes) == 6, lines_of(report)


def test_a_refusal_that_names_the_storage_name_is_caught(bundles, tmp_path):
    folder = copy_of(bundles, "evalai", tmp_path)
    edit_script(folder, "kaist_kit/hosting/scoring.py", "return STORAGE_NAME.sub(YOUR_FILE, text)", "return text")
    lines = errors_of(check_bundle(folder))
    assert any("[storage-name]" in line and "malformed .json" in line for line in lines), lines


@pytest.mark.parametrize(
    "where, value, says",
    [
        ("split.leaderboard_decimal_precision", "two", "leaderboard_decimal_precision is 'two', not an integer"),
        ("start_date", "next monday", "start_date is 'next monday', not a date and time"),
        ("start_date", "2026-01-01", "not a date and time"),  # a YAML date: DRF wants a datetime
        ("phase.max_submissions_per_day", "five", "max_submissions_per_day is 'five', not an integer from 0"),
        ("phase.max_submissions_per_day", -1, "max_submissions_per_day is -1, not an integer from 0"),
        ("phase.id", "one", "challenge_phases[0].id is 'one', not an integer"),
        ("worker_python_version", "3.12", "worker_python_version is '3.12', not one of '3.7', '3.8', '3.9'"),
        ("worker_python_version", 3.10, "worker_python_version is 3.1, not one of"),
        ("split.is_leaderboard_order_descending", "sometimes", "is_leaderboard_order_descending is 'sometimes'"),
        ("phase.codename", False, "codename is False, not a text"),
        ("title", "x" * 101, "not a text of at most 100 characters"),
    ],
)
def test_evalai_types_are_read_as_its_validators_read_them(bundles, tmp_path, where, value, says):
    folder = copy_of(bundles, "evalai", tmp_path)

    def change(data):
        if where.startswith("split."):
            data["challenge_phase_splits"][0][where[6:]] = value
        elif where.startswith("phase."):
            data["challenge_phases"][0][where[6:]] = value
        else:
            data[where] = value

    edit_config(folder, change)
    report = check_bundle(folder, run=False)
    lines = errors_of(report)
    assert any("[type]" in line and says in line for line in lines), lines
    # What is not valid is not described either: no "True, highest first" for "sometimes".
    assert not any("[default-order]" in line for line in lines), lines


@pytest.mark.parametrize(
    "where, value",
    [
        ("phase.max_submissions_per_day", "5"),
        ("phase.max_submissions_per_day", 5.0),
        ("split.is_leaderboard_order_descending", "false"),
        ("split.is_leaderboard_order_descending", 0),
        ("worker_python_version", 3.9),  # a float: DRF's choice field reads it as "3.9"
        ("start_date", "2026-01-01T00:00:00Z"),
        ("phase.codename", 2026),
    ],
)
def test_evalai_accepts_what_its_validators_accept(bundles, tmp_path, where, value):
    folder = copy_of(bundles, "evalai", tmp_path)

    def change(data):
        target = {"split.": data["challenge_phase_splits"][0], "phase.": data["challenge_phases"][0]}.get(where[:6])
        if target is None:
            data[where] = value
        else:
            target[where[6:]] = value

    edit_config(folder, change)
    assert check_bundle(folder, run=False).problems == []


def test_is_leaderboard_order_descending_is_read_as_drf_reads_it(bundles, tmp_path):
    folder = copy_of(bundles, "evalai", tmp_path)
    edit_config(folder, lambda data: data["challenge_phase_splits"][0].update(is_leaderboard_order_descending="yes"))
    (line,) = errors_of(check_bundle(folder, run=False))
    assert "[default-order]" in line and "highest first (is_leaderboard_order_descending: True)" in line


# Class 4 of the campaign: wrong types gave tracebacks; now one line each, and the rest is still checked.
@pytest.mark.parametrize(
    "change, says",
    [
        (lambda d: d["leaderboard"][0].update(schema="LAMR all"), "leaderboard[0].schema is 'LAMR all', not a mapping"),
        (lambda d: d["leaderboard"][0]["schema"].update(labels=7), "labels is 7, not a list"),
        (lambda d: d["leaderboard"][0]["schema"].update(labels="LAMR all"), "labels is 'LAMR all', not a list"),
        (lambda d: d["leaderboard"][0]["schema"].update(metadata="x"), "metadata is 'x', not a mapping"),
        (lambda d: d["leaderboard"][0]["schema"]["labels"].append(["a", "b"]), "labels[6] is ['a', 'b'], not a text"),
        (lambda d: d.update(challenge_phases="test"), "challenge_phases is 'test', not a list"),
        (lambda d: d["challenge_phases"][0].update(allowed_submission_file_types=[".json"]), "not a text"),
    ],
)
def test_configurations_of_the_wrong_shape_are_refused_in_one_line(bundles, tmp_path, change, says):
    folder = copy_of(bundles, "evalai", tmp_path)
    edit_config(folder, change)
    report = check_bundle(folder, run=False)
    lines = errors_of(report)
    assert any("[type]" in line and says in line for line in lines), lines
    assert all("\n" not in line for line in lines_of(report))
    # A label given as one string is not read letter by letter.
    assert not any("label 'L'" in line for line in lines_of(report))


# The schema's EvalAI fields against Django REST framework's own (3.10.3, Django 2.2.20: EvalAI's pins), on
# values as PyYAML reads them.
VALUES_YAML = """\
- 5
- "5"
- 5.0
- 5.5
- "5.0"
- " 7 "
- five
- -1
- 0
- 1
- 2
- true
- false
- "true"
- "false"
- "True"
- "yes"
- "Yes"
- "no"
- "on"
- "off"
- "t"
- "sometimes"
- null
- ""
- "  "
- [1]
- {a: 1}
- 2024-06-11
- 2024-06-11 00:00:00
- "2024-06-11 00:00:00"
- "2024-06-11T00:00:00Z"
- "2024-06-11T00:00:00+09:00"
- "2024-6-1 0:0"
- "2024-06-11"
- "2024-13-01 00:00:00"
- "next monday"
- 3.9
- "3.9"
- 3.10
- "3.12"
- 1e400
- "x"
- 2026
"""
DRF_FIELDS = {
    "IntegerField(min_value=0)": schema.Int(),
    "IntegerField()": schema.Int(None),
    "BooleanField()": schema.Bool(),
    "DateTimeField()": schema.DateTime(),
    "CharField(max_length=100)": schema.Text(100),
    "CharField(max_length=4)": schema.Text(4),
    "ChoiceField(choices=[('3.7', '3.7'), ('3.8', '3.8'), ('3.9', '3.9')], allow_blank=True)": schema.Choice(
        "3.7", "3.8", "3.9", blank=True
    ),
    "ChoiceField(choices=[(1, 'host'), (2, 'owner and host'), (3, 'public')])": schema.Choice(1, 2, 3),
}
DRF_HARNESS = """
import json, sys, yaml, django
from django.conf import settings
settings.configure(USE_TZ=True, INSTALLED_APPS=["rest_framework"])
django.setup()
from rest_framework import serializers
values = yaml.safe_load(sys.argv[1])
verdicts = {}
for field in json.loads(sys.argv[2]):
    made = eval("serializers." + field)
    row = []
    for value in values:
        try:
            made.run_validation(value)
            row.append(True)
        except serializers.ValidationError:
            row.append(False)
    verdicts[field] = row
print(json.dumps(verdicts))
"""


def test_the_schema_reads_values_as_evalais_serializers_do(reference_env):
    python = reference_env("evalai-validators")
    done = subprocess.run(
        [str(python), "-c", DRF_HARNESS, VALUES_YAML, json.dumps(list(DRF_FIELDS))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    drf = json.loads(done.stdout)
    values = yaml.safe_load(VALUES_YAML)
    for field, spec in DRF_FIELDS.items():
        ours = [not spec.problems(value, "x") for value in values]
        differ = [repr(v) for v, a, b in zip(values, ours, drf[field]) if a != b]
        assert differ == [], (field, differ)


# --- Codabench ---------------------------------------------------------------------------------------


def test_scoring_that_counts_the_workers_metadata_as_a_result_is_caught(bundles, tmp_path):
    folder = copy_of(bundles, "codabench", tmp_path)
    scoring = folder / "scoring_program" / "kaist_kit" / "hosting" / "scoring.py"
    scoring.write_text(scoring.read_text().replace('WORKER_FILES = ("metadata",)', "WORKER_FILES = ()"))
    lines = errors_of(check_bundle(folder))
    assert any(
        "[mis-score]" in line and "input/res (with its metadata file)" in line and "MY_result.json, metadata" in line
        for line in lines
    ), lines


@pytest.mark.parametrize(
    "change, level, says",
    [
        (lambda d: d["leaderboards"][0]["columns"][0].update(sorting="ascending"), "error", "sorting is 'ascending'"),
        (lambda d: d["tasks"][0].update(index="zero"), "error", "tasks[0].index is 'zero', not an integer from 0"),
        (lambda d: d["phases"][0].update(index="zero"), "error", "phases[0].index is 'zero'"),
        (lambda d: d["phases"][0].update(max_submissions_per_day="five"), "error", "max_submissions_per_day is 'five'"),
        (lambda d: d["phases"][0].update(start="next monday"), "error", "start is 'next monday', not a date"),
        (lambda d: d["leaderboards"][0]["columns"][0].update(title="x" * 37), "error", "at most 36 characters"),
        (lambda d: d.pop("docker_image"), "note", "codalab/codalab-legacy:py37 (Python 3.7)"),
    ],
)
def test_codabench_types_are_read_as_its_unpacker_reads_them(bundles, tmp_path, change, level, says):
    folder = copy_of(bundles, "codabench", tmp_path)
    edit_config(folder, change)
    report = check_bundle(folder, run=False)
    assert any(p.level == level and says in p.message for p in report.problems), lines_of(report)
    assert not any("is sorted ascending" in line for line in lines_of(report))


# --- the command: exit codes and messages --------------------------------------------------------------


def kit(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True, **kwargs
    )


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_invalid_yaml_is_an_error_of_the_bundle_and_no_message_names_the_checks_folders(bundles, tmp_path):
    folder = copy_of(bundles, "evalai", tmp_path)
    (folder / "challenge_config.yaml").write_text("title: [unclosed\n")
    zipped = tmp_path / "bundle.zip"
    write_tree(zipped, files_of(folder))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    done = kit("host", "check", zipped, env=env)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert (
        "[yaml] challenge_config.yaml:2: invalid YAML" in done.stdout
        and f"{zipped}: EvalAI bundle, 1 error" in done.stdout
    )
    assert str(scratch) not in done.stdout + done.stderr and tempfile.gettempdir() + "/" not in done.stdout
    folder = copy_of(bundles, "evalai", tmp_path / "typed")
    edit_config(folder, lambda d: d["challenge_phases"][0].update(max_submissions_per_day="five"))
    write_tree(
        tmp_path / "b2.zip",
        {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()},
    )
    done = kit("host", "check", tmp_path / "b2.zip", env=env)
    assert done.returncode == 1 and str(scratch) not in done.stdout + done.stderr
    assert list(scratch.iterdir()) == []  # the check's folders are gone
    done = kit("host", "check", tmp_path / "nothing.zip")
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_yaml_bombs_are_refused_in_one_line(bundles, tmp_path):
    laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{chr(98 + k)}: &{chr(98 + k)} [{', '.join(['*' + chr(97 + k)] * 9)}]\n" for k in range(9)
    )
    for name, text in (
        ("laughs", laughs + "description: *j\n"),
        ("nested", "title: " + "[" * 5000 + "]" * 5000 + "\n"),
        ("nested mappings", "title: " + "{a: " * 3000 + "b" + "}" * 3000 + "\n"),
    ):
        folder = copy_of(bundles, "evalai", tmp_path / name)
        (folder / "challenge_config.yaml").write_text(text)
        done = kit("host", "check", folder, "--no-run", timeout=120)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        (line,) = [line for line in done.stdout.splitlines() if line.startswith("error")]
        assert "[yaml]" in line and ("aliases are expanded" in line or "nests deeper than" in line), line


# --- containment: nothing outside the bundle is read or run -------------------------------------------


def test_paths_outside_the_bundle_are_neither_read_nor_run(bundles, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    marker = tmp_path / "ran"
    evil = {"__init__.py": f"open({str(marker)!r}, 'w').write('x')\ndef evaluate(*a, **k):\n    return {{}}\n"}
    with zipfile.ZipFile(outside / "evaluation_script.zip", "w") as archive:
        for name, text in evil.items():
            archive.writestr(name, text)
    (outside / "secret.json").write_text(json.dumps({"images": [], "annotations": []}))
    folder = copy_of(bundles, "evalai", tmp_path / "evalai")
    os.symlink(outside / "secret.json", folder / "templates" / "linked.html")

    def change(data):
        data["evaluation_script"] = "../outside/evaluation_script.zip"
        data["description"] = "/etc/passwd"
        data["terms_and_conditions"] = "templates/linked.html"
        data["challenge_phases"][0]["test_annotation_file"] = str(outside / "secret.json")

    edit_config(folder, change)
    report = check_bundle(folder)
    outside_lines = [line for line in lines_of(report) if "[outside]" in line]
    assert len(outside_lines) == 4, lines_of(report)
    assert not report.ran and not marker.exists()
    assert any("a link out of the bundle" in line for line in outside_lines)

    folder = copy_of(bundles, "codabench", tmp_path / "codabench")
    metadata = folder / "scoring_program" / "metadata.yaml"
    metadata.write_text(f'command: "python3 {outside}/run.py /app/input /app/output"\n')
    (outside / "run.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    report = check_bundle(folder)
    assert any("[outside]" in line and "outside the container's /app: not run" in line for line in lines_of(report))
    assert not marker.exists()
    edit_config(folder, lambda d: d["tasks"][0].update(scoring_program="../outside"))
    report = check_bundle(folder)
    assert any("[outside]" in line and "'../outside'" in line for line in lines_of(report)) and not marker.exists()


# --- property-based: any shape of configuration -------------------------------------------------------

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.integers(1, 200).map(lambda depth: _nested(depth)),
    st.integers(1, 5000).map(lambda n: ["x"] * n),
)


def _nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for k, value in enumerate(data):
            yield from _paths(value, (*prefix, k))


def _set(data, path, value):
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=FIXTURES)
@given(st.data())
def test_any_mutation_of_a_configuration_is_checked_in_lines_or_refused_in_one(bundles, tmp_path, data):
    for name in ("evalai", "codabench"):
        folder = tmp_path / name
        if not folder.exists():
            shutil.copytree(bundles / name, folder)
        config = folder / ("challenge_config.yaml" if name == "evalai" else "competition.yaml")
        document = yaml.safe_load((bundles / name / config.name).read_text())
        for _ in range(data.draw(st.integers(1, 3))):
            path = data.draw(st.sampled_from([p for p in _paths(document) if p]))
            _set(document, path, data.draw(VALUES))
        if data.draw(st.booleans()):  # one value twice: PyYAML writes it once, with an anchor, then aliases
            shared = data.draw(VALUES)
            document["description" if name == "evalai" else "title"] = [shared, shared]
        config.write_text(yaml.safe_dump(document, width=10**6))
        try:
            report = check_bundle(folder, run=False)
        except InputError as exc:
            assert "\n" not in str(exc)
            continue
        for problem in report.problems:
            assert "\n" not in problem.message and problem.level in ("error", "warning", "note")


# --- leaderboard: its cache, its folder, its entries ----------------------------------------------------


def small_site(tmp_path: Path) -> tuple[Path, Path]:
    gt = small_truth(tmp_path / "gt.json")
    entries = tmp_path / "entries"
    entries.mkdir()
    truth = json.loads(gt.read_text())
    records = [
        {"image_id": a["image_id"], "category_id": 1, "bbox": a["bbox"], "score": 0.9} for a in truth["annotations"]
    ]
    (entries / "Good_result.json").write_text(json.dumps(records))
    (entries / "Half_result.json").write_text(json.dumps(records[::2]))
    return gt, entries


def test_the_site_never_removes_outside_itself(tmp_path):
    gt, entries = small_site(tmp_path)
    site = tmp_path / "site"
    build_site(entries, gt, site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.html").write_text("not the site's")
    (tmp_path / "keep.html").write_text("not the site's")
    os.symlink(elsewhere, site / "linked")
    cache = json.loads((site / CACHE_NAME).read_text())
    cache["outputs"]["files"] += [
        "linked/keep.html",
        "../keep.html",
        str(tmp_path / "keep.html"),
        "entries/../../keep.html",
    ]
    cache["outputs"]["folders"] += ["linked", "..", str(elsewhere)]
    (site / CACHE_NAME).write_text(json.dumps(cache))
    build_site(entries, gt, site)
    assert (elsewhere / "keep.html").read_text() == "not the site's"
    assert (tmp_path / "keep.html").read_text() == "not the site's"
    assert (site / "linked").is_symlink()


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=FIXTURES)
@given(st.data())
def test_a_cache_of_any_shape_is_read_against_its_schema(tmp_path, data):
    site = tmp_path / "site"
    if not site.exists():
        gt, entries = small_site(tmp_path)
        first = build_site(entries, gt, site)
        (tmp_path / "numbers.json").write_text(json.dumps({e.source: e.values for e in first.entries}))
        (tmp_path / "cache.json").write_bytes((site / CACHE_NAME).read_bytes())
    cache = json.loads((tmp_path / "cache.json").read_text())
    for _ in range(data.draw(st.integers(1, 4))):
        path = data.draw(st.sampled_from([p for p in _paths(cache) if p]))
        _set(cache, path, data.draw(VALUES))
    (site / CACHE_NAME).write_text(json.dumps(cache))
    # No traceback, and the right numbers whatever the cache said.
    again = build_site(tmp_path / "entries", tmp_path / "gt.json", site)
    assert {e.source: e.values for e in again.entries} == json.loads((tmp_path / "numbers.json").read_text())


def test_one_oversized_entry_is_refused_alone(tmp_path):
    gt, entries = small_site(tmp_path)
    with zipfile.ZipFile(entries / "Bomb_result.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("Bomb_result.json", b" " * 3_000_000)
    with limited(max_bytes=1_000_000):
        site = build_site(entries, gt, tmp_path / "site")
    by_source = {e.source: e for e in site.entries}
    assert by_source["Bomb_result.zip"].refused and "Bomb_result.zip" in site.refused
    assert by_source["Good_result.json"].values and not by_source["Good_result.json"].refused
    assert sorted(site.scored) == ["Good_result.json", "Half_result.json"]


def test_names_that_are_not_utf8_are_written(tmp_path):
    gt, entries = small_site(tmp_path)
    os.rename(entries / "Half_result.json", os.fsdecode(bytes(entries / "Half") + b"\xff_result.json"))
    title = os.fsdecode(b"Lab \xfe challenge")
    site = build_site(entries, gt, tmp_path / "site", title=title)
    assert "Lab \ufffd challenge" in (tmp_path / "site" / "index.html").read_text()
    assert any(e.name == "Half\ufffd" for e in site.entries)
    again = build_site(entries, gt, tmp_path / "site", title=title)
    assert again.rescored == []  # the cache reads back what it wrote
    write_evalai_bundle(gt, tmp_path / "bundle", HostOptions(title=title, spec=SPEC))
    assert 'title: "Lab \ufffd challenge"' in (tmp_path / "bundle" / "challenge_config.yaml").read_text()
    # The commands, given the bytes as a shell gives them.
    title_bytes, here = b"Lab \xfe challenge", bytes(tmp_path)
    for args in (
        [b"host", b"evalai", b"--gt", bytes(gt), b"--out", here + b"/b\xff", b"--title", title_bytes],
        [b"leaderboard", bytes(entries), b"--gt", bytes(gt), b"--out", here + b"/s\xff", b"--title", title_bytes],
    ):
        done = subprocess.run([sys.executable.encode(), b"-m", b"kaist_kit", *args], capture_output=True)
        assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr


def test_a_bundle_is_written_whole_or_not_at_all(tmp_path, monkeypatch, bundles):
    import kaist_kit.hosting.bundle as bundle_module

    written = []

    def failing(path, data):
        if len(written) == 5:
            raise InputError("cannot write: No space left on device", path)
        written.append(path)
        (Path(path).parent).mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(data)

    monkeypatch.setattr(bundle_module, "write_bytes_atomic", failing)
    with pytest.raises(InputError, match="No space left"):
        write_evalai_bundle(bundles / "test-small.json", tmp_path / "bundle", HostOptions(spec=SPEC))
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no bundle folder, no staging folder


def test_leaderboard_options_and_counts(tmp_path):
    gt, entries = small_site(tmp_path)
    (entries / "Broken_result.txt").write_text("garbage\n")
    for top in ("0", "-3", "51"):
        done = kit("leaderboard", entries, "--gt", gt, "--out", tmp_path / "site", "--top", top)
        assert done.returncode == 2 and "is not a whole number from 1 to 50" in done.stderr
    done = kit("leaderboard", entries, "--gt", gt, "--out", tmp_path / "site")
    assert done.returncode == 0 and "3 entries (2 scored, 1 refused, 0 unchanged)" in done.stdout
    with pytest.raises(ValueError, match="1 to 50"):
        build_site(entries, gt, tmp_path / "site", top=0)
