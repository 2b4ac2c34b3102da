"""Named training sets (`kaist-kit trainset`): the frames a published method trained on, rebuilt by
name, and the validation split that is not the test set.

- `specs`: one `TrainingSet` per set (frames, citation, where its list comes from, the sources it
  accepts);
- `lists`: the frame lists the kit knows, built by rule or shipped, each pinned by a checksum; the
  videos held out for validation;
- `validation`: the rule that chose those videos, from the official annotations;
- `mbnet`: MBNet's pickled cache, read without running code;
- `build`: writing a set as COCO JSON with the converters;
- `compare`: what differs between two sets.
"""

from .specs import NAMES, SETS, SOURCE_KINDS, TrainingSet, get_set

__all__ = ["NAMES", "SETS", "SOURCE_KINDS", "TrainingSet", "get_set"]
