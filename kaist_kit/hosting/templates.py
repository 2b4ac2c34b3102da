"""The pages of a hosted challenge, written from the kit's own definitions.

The description, the evaluation details and the submission guidelines say what the kit does, in the
words its specs use: the settings' and protocols' descriptions, each column's description, the
findings that refuse an upload, the target `kaist-kit submit` packages for. A page is a list of
blocks, rendered as HTML (EvalAI) or Markdown (Codabench).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from .. import __version__
from ..data.groundtruth import GroundTruth
from ..metrics.matching import ignore_masks
from ..metrics.settings import LEADERBOARD, PROTOCOLS, get_setting
from ..scoring.findings import ERROR, KINDS, WARNING
from .columns import PROTOCOL_NAMES, ColumnSpec

# What the kit reads: result files and archives of them (the platforms check the extension).
UPLOAD_TYPES = (".json", ".txt", ".zip", ".tar", ".tgz")
KAIST_ATTRIBUTION = (
    "The KAIST Multispectral Pedestrian Detection Benchmark (Hwang et al., CVPR 2015): images and "
    "labels under CC BY-NC-SA 4.0."
)

Block = tuple  # ("h", text) | ("p", text) | ("ul", [text]) | ("code", text) | ("table", headers, rows)


@dataclass
class Challenge:
    """What the pages speak of."""

    title: str
    gt: GroundTruth
    gt_name: str  # the annotation file's name in the bundle
    spec: ColumnSpec
    platform: str  # "EvalAI" or "Codabench"
    upload_hint: str  # what to upload there, in words

    @property
    def public_labels(self) -> bool:
        """The leaderboard's own test-all-20, whose labels are public: participants can self-score."""
        return self.gt.is_leaderboard_file


def counts(gt: GroundTruth, setting: str = "reasonable") -> dict[str, int]:
    periods = np.array(gt.image_periods)
    counted = ~ignore_masks(gt, [get_setting(setting)])[0]
    return {
        "images": gt.n_images,
        "day": int((periods == "day").sum()),
        "night": int((periods == "night").sum()),
        "boxes": len(gt.ann_ids),
        "counted": int(counted.sum()),
    }


def submit_line(challenge: Challenge, out: str) -> str:
    """The command that writes the file to upload."""
    gt = "" if challenge.public_labels else " --gt test-images.json"
    return f"kaist-kit submit MY_result.json{gt} --out {out}"


def description(c: Challenge) -> list[Block]:
    n = counts(c.gt, c.spec.settings[0])
    first = c.spec.columns()[0]
    return [
        ("h", c.title),
        (
            "p",
            "Detect pedestrians in aligned visible and thermal (LWIR) image pairs of the KAIST multispectral "
            "pedestrian benchmark.",
        ),
        (
            "p",
            f"The test set has {n['images']:,} images ({n['day']:,} by day, {n['night']:,} by night) with "
            f"{n['boxes']:,} labelled boxes, of which {n['counted']:,} are pedestrians that count in the "
            f"{c.spec.settings[0]} setting; the others are ignore regions (people, cyclists, uncertain "
            "labels, boxes too small, too occluded or too close to the border).",
        ),
        ("p", f"Entries are ranked by {first.label}: {first.description}."),
        (
            "p",
            f"Every upload is scored by kaist-kit {__version__}, with exactly the numbers `kaist-kit eval` "
            "prints for the same file.",
        ),
        ("p", KAIST_ATTRIBUTION),
    ]


def evaluation_details(c: Challenge) -> list[Block]:
    columns = c.spec.columns()
    blocks: list[Block] = [
        ("h", "Evaluation"),
        (
            "p",
            f"Each column of the leaderboard is one number that `kaist-kit eval` prints (kaist-kit {__version__}), "
            "in percent:",
        ),
        (
            "table",
            ["column", "what it is", "better"],
            [
                [col.label, col.description.rsplit(";", 1)[0], "lower" if col.lower_is_better else "higher"]
                for col in columns
            ],
        ),
        ("h", "Settings and protocols"),
        (
            "ul",
            [
                f"{name}: {get_setting(name).description}; every other box is an ignore region, and so is every "
                "box closer than 5 pixels to the image border"
                for name in c.spec.settings
            ]
            + [f"{PROTOCOL_NAMES.get(name, name)}: {PROTOCOLS[name].description}" for name in c.spec.protocols],
        ),
        (
            "p",
            "A detection matches a pedestrian at IoU 0.5 or more (greedily, in descending score); one matched "
            "to an ignore region counts neither way. The log-average miss rate averages the miss rate at nine "
            "false-positive-per-image points from 10^-2 to 10^0 on a log scale.",
        ),
    ]
    if "leaderboard" in c.spec.protocols:
        blocks.append(
            (
                "p",
                f"Under the leaderboard protocol the {LEADERBOARD.max_detections_per_image:,} "
                "highest-scoring detections of an image count, and images without any detection leave "
                "their pedestrians out of the miss rate (the devkit's protocol counts them as misses).",
            )
        )
    errors = [k for k in KINDS.values() if k.level == ERROR]
    warnings = [k for k in KINDS.values() if k.level == WARNING]
    blocks += [
        ("h", "Uploads that are refused"),
        (
            "p",
            "An upload that looks misread is refused with one line that says why and how to fix it; nothing is scored:",
        ),
        (
            "ul",
            [f"{k.code}: {k.detects}" for k in errors]
            + [
                "a file that cannot be read as a result (a malformed line, an unknown image id, a non-finite number): "
                "the line says which file and line",
                "no pedestrian that counts in a column (its number would mean nothing)",
            ],
        ),
        (
            "p",
            "What may cost miss rate is reported with the scores, one line each (the kit's findings): "
            + ", ".join(k.code for k in warnings)
            + ".",
        ),
    ]
    return blocks


def submission_guidelines(c: Challenge) -> list[Block]:
    upload = "MY_METHOD.json" if c.platform == "EvalAI" else "MY_METHOD.zip"
    blocks: list[Block] = [
        ("h", "How to submit"),
        (
            "p",
            f"Upload {c.upload_hint}. Write it with kaist-kit (pip install kaist-kit), from a result in any "
            "format it reads (COCO result JSON, the leaderboard's txt, the devkit's per-image folder, or an "
            "archive of one):",
        ),
        ("code", submit_line(c, upload)),
        (
            "p",
            "It sorts and caps the detections as the evaluator scores them, and says in one line each what is "
            "wrong with the result (boxes written as corners, image ids off by one, a score threshold, ...). "
            f"The file types accepted are {', '.join(UPLOAD_TYPES)}; a zip or tar holds one result file.",
        ),
    ]
    if c.platform == "Codabench":
        blocks.append(
            (
                "p",
                "Codabench takes a zip: `--out MY_METHOD.zip` writes one with the results and their "
                "manifest, and the scorer reads the results file inside.",
            )
        )
    else:
        blocks.append(
            (
                "p",
                "`--out MY_METHOD.json` writes the results with MY_METHOD.manifest.json beside them: "
                "upload the .json, keep the manifest.",
            )
        )
    if c.public_labels:
        blocks += [
            ("p", "The test labels are public, so the score can be checked before uploading:"),
            (
                "code",
                "kaist-kit eval MY_METHOD.json"
                + ("" if c.spec.protocols == ("leaderboard",) else " --protocol leaderboard --protocol matlab"),
            ),
        ]
    else:
        blocks.append(
            (
                "p",
                f"test-images.json lists the test images without labels (ids, names, sizes): "
                f"the organisers publish it beside this page. The {c.gt.n_images:,} test images must "
                "keep these ids.",
            )
        )
    blocks.append(
        (
            "p",
            "`kaist-kit submit --check MY_METHOD.json` says what an evaluator will make of a file "
            "without writing anything.",
        )
    )
    return blocks


def terms(c: Challenge) -> list[Block]:
    return [
        ("h", "Terms and conditions"),
        ("p", "The organisers state here who may take part, how often, and how results may be used."),
        ("p", KAIST_ATTRIBUTION),
    ]


def phase_description(name: str, start: str, end: str) -> list[Block]:
    return [("h", name), ("p", f"Open from {start} to {end} (UTC).")]


# --- rendering -----------------------------------------------------------------------------------


def to_html(blocks: list[Block]) -> str:
    return _rendered(blocks, _HTML, "\n")


def to_markdown(blocks: list[Block]) -> str:
    return _rendered(blocks, _MARKDOWN, "\n\n")


def _rendered(blocks: list[Block], renderers: dict, between: str) -> str:
    """Each block by its kind's renderer (its parts after the kind are the renderer's arguments)."""
    return between.join(renderers[block[0]](*block[1:]) for block in blocks if block[0] in renderers) + "\n"


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    lines = "\n".join("  <tr>" + "".join(f"<td>{_inline_html(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table>\n  <tr>{cells}</tr>\n{lines}\n</table>"


def _markdown_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


_HTML = {
    "h": lambda text: f"<h2>{html.escape(text)}</h2>",
    "p": lambda text: f"<p>{_inline_html(text)}</p>",
    "ul": lambda items: "<ul>\n" + "\n".join(f"  <li>{_inline_html(item)}</li>" for item in items) + "\n</ul>",
    "code": lambda text: f"<pre><code>{html.escape(text)}</code></pre>",
    "table": _html_table,
}
_MARKDOWN = {
    "h": lambda text: f"## {text}",
    "p": lambda text: text,
    "ul": lambda items: "\n".join(f"- {item}" for item in items),
    "code": lambda text: f"```\n{text}\n```",
    "table": _markdown_table,
}


def _inline_html(text: str) -> str:
    """Escaped text, with `code` spans as <code>."""
    parts = text.split("`")
    return "".join(f"<code>{html.escape(p)}</code>" if k % 2 else html.escape(p) for k, p in enumerate(parts))
