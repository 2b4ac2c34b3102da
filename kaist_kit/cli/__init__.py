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

Options that several verbs share are declared once, in `options`; `console.main` is the entry point.
"""

# Importing the package imports nothing else: `main` takes the interrupts first (see console.py), and
# `app`, the application with every verb (verbs.py), is imported on first use.
from ..exports import export_lazily
from .console import main  # noqa: F401 - the console script's entry point

export_lazily(__name__, {"app": ".verbs", "main": ".console"})
