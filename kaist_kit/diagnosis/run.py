"""A diagnosis of a result file, as `kaist-kit diagnose` makes it: read and inspect the file,
diagnose it, write the report's files, and give it in each output format."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..data.detections import Detections, ReadOptions, method_name
from ..data.groundtruth import GroundTruth
from ..io.write import check_outputs, check_writable
from ..output.tables import Table
from ..scoring.findings import Finding, ground_truth_notes, inspect_scores, read_inspected
from .compute import Diagnosis, diagnose
from .params import DiagnosisParams
from .report import WrittenReport, numbers_table, plan_report, tables, to_markdown, write_matches, write_report


@dataclass
class DiagnosedFile:
    """A result file's diagnosis, what was found in the file, and the files written."""

    diagnosis: Diagnosis
    dets: Detections
    findings: list[Finding]
    written: WrittenReport | None = None  # the report's folder (--out)
    matches: Path | None = None  # every detection's outcome (--matches)
    light: bool = field(default=True, repr=False)  # its tables fit 80 columns in light rules

    def to_json(self) -> dict:
        pictures = self.written.pictures if self.written else None
        return {**self.diagnosis.to_dict(pictures), "findings": [f.to_dict() for f in self.findings]}

    def to_csv(self) -> str:
        return numbers_table(self.diagnosis).to_csv()

    def to_markdown(self) -> str:
        return to_markdown(self.diagnosis)

    def tables(self) -> list[Table]:
        return tables(self.diagnosis, detailed=False)

    def lines(self) -> list[str]:
        return []

    def said(self) -> list[str]:
        """What was written, as `diagnose` says it on stderr."""
        said = []
        if self.written is not None:
            said.append(
                f"diagnosis written to {self.written.folder}: diagnosis.json, report.md, 4 figures, "
                f"{len(self.written.pictures)} drawn examples"
            )
        if self.matches is not None:
            settings = len(self.diagnosis.params.settings)
            said.append(f"matches written to {self.matches}: {len(self.dets)} detections x {settings} settings")
        return said


def diagnose_file(
    path: str | os.PathLike,
    gt: GroundTruth,
    params: DiagnosisParams | None = None,
    options: ReadOptions | None = None,
    name: str | None = None,
    *,
    out_dir: str | os.PathLike | None = None,
    pictures: Sequence[str | os.PathLike] = (),
    matches: str | os.PathLike | None = None,
) -> DiagnosedFile:
    """Read ``path`` (as ``options`` say) and inspect it, diagnose it (``params``), and write the
    report into ``out_dir`` (examples drawn from the pictures under the ``pictures`` folders) and
    every detection's outcome to ``matches``, when given. The outputs and the splits are checked
    before the file is read, and the outputs again once every input is known, before any is written;
    a file that looks misread stops with its fix (see `findings.refuse_errors`)."""
    params = params or DiagnosisParams()
    if out_dir is not None:
        check_writable(out_dir, folder=True)
    if matches is not None:
        check_writable(matches)
    for split in params.splits:
        gt.split_mask(split)
    dets, findings = read_inspected(path, gt, [params.main_setting], params.splits, [params.protocol], options)
    findings = ground_truth_notes(gt) + findings
    diagnosis = diagnose(gt, dets, params, name or method_name(path))
    findings += inspect_scores([diagnosis.view(params.main_setting, s).result for s in params.splits], dets)
    done = DiagnosedFile(diagnosis, dets, findings)
    # Every input is known now (the pictures of the examples included): every output is checked
    # against them, and against each other, before the first is written.
    plan = plan_report(diagnosis, out_dir, pictures) if out_dir is not None else None
    check_outputs([*(plan.files if plan is not None else []), *([matches] if matches is not None else [])])
    if plan is not None:
        done.written = write_report(diagnosis, gt, dets, out_dir, plan=plan)
    if matches is not None:
        done.matches = write_matches(diagnosis, gt, matches)
    return done
