"""The `kaist-kit` command, a module per stage of the pipeline; each verb is a thin shell over a
library call.

- `data`: annotations to COCO (`convert`), a synthetic KAIST (`synth`), `stats` and `show`;
- `fetch`: the leaderboard's ground truth, downloaded ahead of time;
- `scoring`: `eval`, `diagnose`, `compare`;
- `submission`: `submit`;
- `hosting`: `host evalai`, `host codabench`, `host check`, `leaderboard`;
- `training_data`: named training sets (`trainset`) and the check of a data root (`check-data`);
- `detectors`: `train`, `test`, `infer`, `init-checkpoint` (the mmdet extra);
- `demo`: all of it on a synthetic KAIST.

Options that several verbs share are declared once, in `options`.
"""

# The verbs register themselves as their modules are imported, in the order of the pipeline,
# which is the order --help lists them in.
# isort: off
from . import data, fetch, scoring, submission, training_data, detectors, hosting, demo  # noqa: F401
# isort: on
from .app import app, main

__all__ = ["app", "main"]
