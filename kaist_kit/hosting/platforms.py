"""What the challenge platforms run a bundle's evaluator in: their workers' interpreters and numpy.

Facts read from the platforms' own repositories (docs/hosting.md names the commits):

- EvalAI (Cloud-CV/EvalAI): a challenge's submissions run on a worker of the Python version its
  configuration names, `worker_python_version`, one of `SUPPORTED_WORKER_PYTHON_VERSIONS`
  (apps/challenges/constants.py; "3.9" when not given); each worker image pins its libraries
  (requirements/worker_py3_*.txt). A host cannot bring another interpreter.
- Codabench (codalab/codabench): a competition names a `docker_image`, and without one runs in
  `codalab/codalab-legacy:py37` (src/apps/competitions/unpackers/v2.py); the legacy images are built
  from codalab/codalab-dockers (Dockerfiles/Dockerfile-py37, -py39, -py312, -gpu310).

The bundles name the newest interpreter each platform offers; the copied core runs on all of them
(`portable`), and the tests run it in each (tests/reference_envs.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Worker:
    """One interpreter a platform runs a bundle's evaluator in."""

    name: str  # how the configuration names it: EvalAI's worker_python_version, Codabench's docker_image
    python: str  # major.minor
    numpy: str  # the numpy the image holds


EVALAI_WORKERS = (
    Worker("3.7", "3.7", "1.21.0"),
    Worker("3.8", "3.8", "1.21.0"),
    Worker("3.9", "3.9", "1.26.4"),
)
EVALAI_DEFAULT_WORKER = "3.9"
EVALAI_WORKER = EVALAI_WORKERS[-1]  # what the kit's bundles name: the newest

CODABENCH_WORKERS = (
    # Anaconda3-2019.07's numpy (its Dockerfile's pip3 line asks for 1.17.2): the older is tested.
    Worker("codalab/codalab-legacy:py37", "3.7", "1.16.4"),
    Worker("codalab/codalab-legacy:py39", "3.9", "1.22.4"),
    Worker("codalab/codalab-legacy:gpu310", "3.10", "1.26.4"),
    Worker("codalab/codalab-legacy:py312", "3.12", "1.26.4"),
)
CODABENCH_DEFAULT_IMAGE = "codalab/codalab-legacy:py37"
CODABENCH_WORKER = CODABENCH_WORKERS[-1]  # what the kit's bundles name: the newest

# The oldest interpreter and numpy a bundle's evaluator runs in: what the copied core may use.
OLDEST_PYTHON = (3, 7)
OLDEST_NUMPY = "1.16.4"

# EvalAI stores an upload as `<uuid4><extension>` (apps/base/utils.py, SubmissionArtifactFileName), and its
# worker hands the evaluator that name: the participant's own file name is gone.
STORAGE_NAME = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}(\.[A-Za-z0-9]+)?")


def evalai_worker(version: object) -> Worker | None:
    """The EvalAI worker a configuration's `worker_python_version` names (the default when it is None or
    empty, as EvalAI's serializer takes it), or None when EvalAI has none of that version."""
    if version in (None, ""):
        version = EVALAI_DEFAULT_WORKER
    return next((w for w in EVALAI_WORKERS if w.name == version), None)


def codabench_worker(image: object) -> Worker | None:
    """The codalab-legacy image a competition's `docker_image` names (the default when not given), or None
    for an image the kit does not know."""
    if image in (None, ""):
        image = CODABENCH_DEFAULT_IMAGE
    return next((w for w in CODABENCH_WORKERS if w.name == image), None)
