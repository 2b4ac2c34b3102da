"""A Codabench competition bundle scored by the kit: `kaist-kit host codabench`.

The bundle is one zip: competition.yaml (version 2), the pages, the logo, the reference data (the
test annotation file) and the scoring program, a folder with its metadata.yaml, score.py, the columns
(challenge.json) and the kit's core. Codabench runs the program's ``command`` in its container with
the reference in /app/input/ref, the participant's zip extracted in /app/input/res and /app/output
for scores.json, whose keys are the leaderboard columns' keys.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..datasets.kaist_truth import load_ground_truth
from ..errors import InputError
from ..io.read import read_bytes
from . import templates, yamlout
from .bundle import core_files, logo_png, write_tree
from .evalai import MIN_PYTHON, test_images
from .options import HostOptions, scorer_config
from .platforms import CODABENCH_WORKER
from .scoring import CONFIG_NAME

CONFIG_FILE = "competition.yaml"
PROGRAM = "scoring_program"
PUBLIC = "public_data"  # what participants may download: the test images without labels
REFERENCE = "reference_data"
LOGO = "logo.png"
PAGES = {
    "Overview": "pages/overview.md",
    "Evaluation": "pages/evaluation.md",
    "Submission": "pages/submission.md",
    "Terms": "pages/terms.md",
}
# Named, as the newest image Codabench offers (codalab/codalab-dockers, Dockerfile-py312: Python 3.12,
# numpy 1.26.4): without one a competition runs in codalab/codalab-legacy:py37, Python 3.7 (where the scorer
# runs too, with numpy 1.16).
DOCKER_IMAGE = CODABENCH_WORKER.name
# Codabench's leaderboard column: its title and key hold at most 36 characters (leaderboards.models.Column).
COLUMN_TEXT_MAX = 36

SCORE_PY = '''"""Codabench's scoring program for this competition: kaist-kit (written by `kaist-kit host codabench`)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    if sys.version_info < {min_python}:
        print("the competition is misconfigured: its scoring program needs Python {min_text} or newer, and its "
              "docker image runs Python %d.%d" % sys.version_info[:2], file=sys.stderr)
        sys.exit(1)
    sys.path.insert(0, HERE)  # the copy of kaist-kit beside this file, before any other
    from kaist_kit.hosting.scoring import codabench_main

    sys.exit(codabench_main(sys.argv[1:], os.path.join(HERE, "{config}")))
'''
METADATA = {"command": "python3 /app/program/score.py /app/input /app/output"}


@dataclass
class CodabenchBundle:
    out: Path
    size: int
    members: list[str]
    keys: list[str]


def competition(options: HostOptions, reference: str, public_labels: bool) -> dict:
    columns = options.spec.columns()
    challenge_pages = [{"title": title, "file": path} for title, path in PAGES.items()]
    return {
        "version": 2,
        "title": options.title,
        "description": "Pedestrian detection on aligned visible and thermal images, scored as the KAIST benchmark "
        "scores it (kaist-kit)",
        "image": LOGO,
        "terms": PAGES["Terms"],
        "docker_image": DOCKER_IMAGE,
        "pages": challenge_pages,
        "phases": [
            {
                "index": k,
                "name": phase.name,
                "description": f"Open from {phase.start} to {phase.end} (UTC).",
                "start": phase.start,
                "end": phase.end,
                "max_submissions_per_day": 5,
                "max_submissions": 100,
                "accepts_only_result_submissions": True,
                "tasks": [0],
                **({} if public_labels else {"public_data": PUBLIC}),
            }
            for k, phase in enumerate(options.phases)
        ],
        "tasks": [
            {
                "index": 0,
                "name": "Pedestrian detection",
                "description": f"Scored against {reference} by kaist-kit",
                "scoring_program": PROGRAM,
                "reference_data": REFERENCE,
            }
        ],
        "leaderboards": [
            {
                "title": "Results",
                "key": "main",
                "columns": [
                    {
                        "title": c.label,
                        "key": c.key,
                        "index": k,
                        "sorting": "asc" if c.lower_is_better else "desc",
                        "precision": 2,
                    }
                    for k, c in enumerate(columns)
                ],
            }
        ],
    }


def bundle_members(gt_path: str | os.PathLike, options: HostOptions) -> dict[str, bytes]:
    gt_bytes = read_bytes(gt_path)
    gt = load_ground_truth(gt_path)
    name = Path(gt_path).name
    challenge = templates.Challenge(
        options.title,
        gt,
        name,
        options.spec,
        "Codabench",
        "a zip that holds one results file, as `kaist-kit submit --out MY_METHOD.zip` writes it",
    )
    members = {
        CONFIG_FILE: yamlout.dump(competition(options, name, challenge.public_labels)).encode(),
        LOGO: logo_png(),
        f"{REFERENCE}/{name}": gt_bytes,
        f"{PROGRAM}/metadata.yaml": yamlout.dump(METADATA).encode(),
        f"{PROGRAM}/score.py": SCORE_PY.format(
            config=CONFIG_NAME, min_python=MIN_PYTHON, min_text=".".join(map(str, MIN_PYTHON))
        ).encode(),
        f"{PROGRAM}/{CONFIG_NAME}": scorer_config(options, name),
        PAGES["Overview"]: templates.to_markdown(templates.description(challenge)).encode(),
        PAGES["Evaluation"]: templates.to_markdown(templates.evaluation_details(challenge)).encode(),
        PAGES["Submission"]: templates.to_markdown(templates.submission_guidelines(challenge)).encode(),
        PAGES["Terms"]: templates.to_markdown(templates.terms(challenge)).encode(),
    }
    members.update(core_files(prefix=f"{PROGRAM}/"))
    if not challenge.public_labels:
        members[f"{PUBLIC}/test-images.json"] = test_images(gt_bytes, gt_path)
    return members


def write_codabench_bundle(
    gt_path: str | os.PathLike, out: str | os.PathLike, options: HostOptions | None = None
) -> CodabenchBundle:
    """Write the Codabench bundle for ``gt_path`` as the zip ``out``. The same input gives the same bytes."""
    options = options or HostOptions()
    if Path(out).suffix.lower() != ".zip":
        raise InputError("a Codabench bundle is one zip: give --out NAME.zip", out)
    long = [c.label for c in options.spec.columns() if max(len(c.label), len(c.key)) > COLUMN_TEXT_MAX]
    if long:
        raise ValueError(
            f"Codabench's column titles and keys hold at most {COLUMN_TEXT_MAX} characters, and {long[0]!r} "
            f"has {len(long[0])}: name fewer settings or shorter ones"
        )
    members = bundle_members(gt_path, options)
    sizes = write_tree(out, members)
    return CodabenchBundle(Path(out), sizes[Path(out).name], sorted(members), [c.key for c in options.spec.columns()])
