"""An EvalAI challenge bundle scored by the kit: `kaist-kit host evalai`.

The bundle is the folder EvalAI's challenge creation takes (zipped, or from a repository):
challenge_config.yaml, the HTML templates, the logo, the test annotation file, and the evaluation
script twice: as the folder `evaluation_script/` and as `evaluation_script.zip`, the same files. A
challenge made from a GitHub repository (Cloud-CV/EvalAI-Starters, github/challenge_processing_script.py)
rebuilds the zip from the folder; one uploaded as a zip, or with EvalAI's CLI, takes the zip.

EvalAI's worker (Cloud-CV/EvalAI, scripts/workers/submission_worker.py) extracts the script zip into
the package `challenge_data.challenge_<id>`, imports it and calls its ``evaluate(test_annotation_file,
user_submission_file, phase_codename, submission_metadata=...)``, in the Python the configuration's
`worker_python_version` names (3.7, 3.8 or 3.9). The script holds that entry point, the columns
(challenge.json) and the kit's core, which runs on each of them with the worker's numpy alone.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..datasets.kaist_truth import load_ground_truth
from ..errors import InputError
from ..io.read import read_bytes
from ..io.text import decode_text, parse_json
from . import templates, yamlout
from .bundle import core_files, logo_png, write_tree, zip_bytes
from .options import SPLIT_CODENAME, HostOptions, scorer_config
from .platforms import EVALAI_WORKER, OLDEST_PYTHON
from .scoring import CONFIG_NAME

CONFIG_FILE = "challenge_config.yaml"
SCRIPT_ZIP = "evaluation_script.zip"
SCRIPT_FOLDER = "evaluation_script"  # the same files, for a challenge made from a GitHub repository
LOGO = "logo.png"
TEMPLATES = {
    "description": "templates/description.html",
    "evaluation_details": "templates/evaluation_details.html",
    "terms_and_conditions": "templates/terms_and_conditions.html",
    "submission_guidelines": "templates/submission_guidelines.html",
}
MIN_PYTHON = OLDEST_PYTHON
TITLE_MAX = 100  # EvalAI's Challenge.title

# The package EvalAI imports: `challenge_data.challenge_<id>`, the zip extracted into it.
INIT_PY = '''"""EvalAI's entry point for this challenge: scored by kaist-kit (written by `kaist-kit host evalai`)."""

from .main import evaluate  # noqa: F401
'''
MAIN_PY = '''"""evaluate() as EvalAI's worker calls it; the scoring is the copy of kaist-kit beside this file."""

import os
import sys

CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "{config}")


def evaluate(test_annotation_file, user_submission_file, phase_codename, **kwargs):
    if sys.version_info < {min_python}:
        line = ("the challenge is misconfigured: its evaluation script needs Python {min_text} or newer, and this "
                "worker runs Python %d.%d" % sys.version_info[:2])
        print(line, file=sys.stderr)
        print(line)
        return {{}}
    from .kaist_kit.hosting.scoring import evalai_evaluate

    return evalai_evaluate(test_annotation_file, user_submission_file, phase_codename, CONFIG,
                           kwargs.get("submission_metadata"))
'''


@dataclass
class EvalAIBundle:
    out: Path
    sizes: dict[str, int]  # bytes written, by file (the zip alone for a zipped bundle)
    script_members: list[str]  # the evaluation script's files
    labels: list[str]
    script_size: int  # evaluation_script.zip's bytes


def script_members(options: HostOptions, reference: str) -> dict[str, bytes]:
    """The evaluation script's files, by their path in the script (its zip, its folder)."""
    members = {
        "__init__.py": INIT_PY.encode(),
        "main.py": MAIN_PY.format(
            config=CONFIG_NAME, min_python=MIN_PYTHON, min_text=".".join(map(str, MIN_PYTHON))
        ).encode(),
        CONFIG_NAME: scorer_config(options, reference),
    }
    members.update(core_files())
    return members


def challenge_config(options: HostOptions, annotation: str) -> dict:
    columns = options.spec.columns()
    first, last = options.phases[0], options.phases[-1]
    return {
        "title": options.title,
        "short_description": "Pedestrian detection on aligned visible and thermal images, scored as the KAIST "
        "benchmark scores it (kaist-kit)",
        "description": TEMPLATES["description"],
        "evaluation_details": TEMPLATES["evaluation_details"],
        "terms_and_conditions": TEMPLATES["terms_and_conditions"],
        "image": LOGO,
        "submission_guidelines": TEMPLATES["submission_guidelines"],
        "leaderboard_description": f"Ranked by {columns[0].label}: {columns[0].description}.",
        "evaluation_script": SCRIPT_ZIP,
        "remote_evaluation": False,
        "worker_python_version": EVALAI_WORKER.name,
        "start_date": first.start,
        "end_date": last.end,
        "published": False,
        "leaderboard": [
            {
                "id": 1,
                "schema": {
                    "labels": [c.label for c in columns],
                    "default_order_by": columns[0].label,
                    "metadata": {
                        c.label: {"sort_ascending": c.lower_is_better, "description": c.description} for c in columns
                    },
                },
            }
        ],
        "challenge_phases": [
            {
                "id": k,
                "name": phase.name,
                "description": f"templates/challenge_phase_{k}_description.html",
                "leaderboard_public": True,
                "is_public": True,
                "is_submission_public": True,
                "start_date": phase.start,
                "end_date": phase.end,
                "test_annotation_file": annotation,
                "codename": phase.codename,
                "max_submissions_per_day": 5,
                "max_submissions_per_month": 50,
                "max_submissions": 100,
                "default_submission_meta_attributes": [
                    {"name": name, "is_visible": True}
                    for name in ("method_name", "method_description", "project_url", "publication_url")
                ],
                "is_restricted_to_select_one_submission": False,
                "is_partial_submission_evaluation_enabled": False,
                "allowed_submission_file_types": ", ".join(templates.UPLOAD_TYPES),
            }
            for k, phase in enumerate(options.phases, 1)
        ],
        "dataset_splits": [{"id": 1, "name": "Test Split", "codename": SPLIT_CODENAME}],
        "challenge_phase_splits": [
            {
                "challenge_phase_id": k,
                "leaderboard_id": 1,
                "dataset_split_id": 1,
                "visibility": 3,
                "leaderboard_decimal_precision": 2,
                # The default order is the first column's: a miss rate ranks lowest first.
                "is_leaderboard_order_descending": not columns[0].lower_is_better,
            }
            for k in range(1, len(options.phases) + 1)
        ],
    }


def bundle_members(gt_path: str | os.PathLike, options: HostOptions) -> dict[str, bytes]:
    """Every file of the bundle, by its path in the bundle."""
    gt_bytes = read_bytes(gt_path)
    gt = load_ground_truth(gt_path)
    name = Path(gt_path).name
    annotation = f"annotations/{name}"
    challenge = templates.Challenge(
        options.title,
        gt,
        name,
        options.spec,
        "EvalAI",
        "one results file: MY_METHOD.json, as `kaist-kit submit` writes it",
    )
    script = script_members(options, name)
    members = {
        CONFIG_FILE: yamlout.dump(challenge_config(options, annotation)).encode(),
        SCRIPT_ZIP: zip_bytes(script),
        **{f"{SCRIPT_FOLDER}/{member}": data for member, data in script.items()},
        LOGO: logo_png(),
        annotation: gt_bytes,
        TEMPLATES["description"]: templates.to_html(templates.description(challenge)).encode(),
        TEMPLATES["evaluation_details"]: templates.to_html(templates.evaluation_details(challenge)).encode(),
        TEMPLATES["submission_guidelines"]: templates.to_html(templates.submission_guidelines(challenge)).encode(),
        TEMPLATES["terms_and_conditions"]: templates.to_html(templates.terms(challenge)).encode(),
    }
    for k, phase in enumerate(options.phases, 1):
        members[f"templates/challenge_phase_{k}_description.html"] = templates.to_html(
            templates.phase_description(phase.name, phase.start, phase.end)
        ).encode()
    if not challenge.public_labels:
        members["test-images.json"] = test_images(gt_bytes, gt_path)
    return members


def test_images(gt_bytes: bytes, gt_path: str | os.PathLike) -> bytes:
    """The test images without their labels, for participants to package their results against."""
    data = parse_json(decode_text(gt_bytes, gt_path), gt_path)
    public = {"images": data["images"], "categories": data.get("categories", [])}
    return (json.dumps(public, separators=(",", ":")) + "\n").encode()


def write_evalai_bundle(
    gt_path: str | os.PathLike, out: str | os.PathLike, options: HostOptions | None = None, *, starters: bool = False
) -> EvalAIBundle:
    """Write the EvalAI bundle for the ground truth ``gt_path`` as the new folder ``out`` (or as the zip
    ``out`` when it ends in .zip). The same input gives the same bytes.

    ``starters``: the folder of a repository made from Cloud-CV/EvalAI-Starters, whose processing script
    (github/challenge_processing_script.py, run by its GitHub workflow) zips `evaluation_script/` into
    evaluation_script.zip: the bundle without that zip, to which the Starters' own `github/` and
    `.github/` folders are added."""
    options = options or HostOptions()
    if len(options.title) > TITLE_MAX:
        raise ValueError(f"EvalAI's challenge titles hold at most {TITLE_MAX} characters: {len(options.title)} given")
    members = bundle_members(gt_path, options)
    script_zip = members[SCRIPT_ZIP]
    if starters:
        if Path(out).suffix.lower() == ".zip":
            raise InputError("a repository made from EvalAI-Starters is a folder, not a zip", out)
        del members[SCRIPT_ZIP]
    sizes = write_tree(out, members)
    with zipfile.ZipFile(io.BytesIO(script_zip)) as archive:
        script = archive.infolist()
    return EvalAIBundle(
        Path(out),
        sizes,
        [info.filename for info in script],
        [c.label for c in options.spec.columns()],
        len(script_zip),
    )
