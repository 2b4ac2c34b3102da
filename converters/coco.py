"""Writing the kit's COCO JSON (schema in docs/datasets.md) and the leaderboard's layout.

The text is written with one template per record rather than by json.dumps over dicts: on the
95,324-frame XML tree that is three to four times faster, and the records are simple (numbers and
escaped strings) so that the templates stay obviously valid JSON; the tests parse every output.
An annotation is formatted without its id (``',"image_id":...}'``) so that chunks of frames can be
formatted in parallel and numbered when they are joined.
"""

from __future__ import annotations

import json
from itertools import repeat
from operator import mul

from kaist_kit.data.frames import period_of
from kaist_kit.datasets import KAIST_LABELS, KAIST_PAIRED_LABELS, Benchmark

from .records import FrameColumns, ObjectColumns

# The leaderboard's categories. Person is the positive class; every other label is an ignore
# region at evaluation. The labels of the sanitized and paired sets follow.
CATEGORIES = ["__ignore__", *KAIST_LABELS]
EXTRA_CATEGORIES = list(KAIST_PAIRED_LABELS)
CATEGORY_ID = {name: k for k, name in enumerate(CATEGORIES + EXTRA_CATEGORIES)}
LICENSE = "CC BY-NC-SA 4.0: KAIST Multispectral Pedestrian Detection Benchmark, Hwang et al., CVPR 2015"
LAYOUTS = ("kit", "leaderboard")
# The first annotation id of each layout. pycocotools reads a match to the box with id 0 as no match
# (it stores the matched id as the flag), so the kit's files count from 1; the leaderboard's layout
# reproduces the leaderboard's file, whose ids count from 0 (its protocol keeps that rule).
FIRST_ANNOTATION_ID = {"kit": 1, "leaderboard": 0}


_IMAGE = (
    '{"id":%%d,"file_name":"%s/%s/visible/%%s.jpg","lwir_file_name":"%s/%s/lwir/%%s.jpg",'
    '"im_name":"%s/%s/%%s","set":"%s","video":"%s","frame":%%d,"period":"%s","width":%%d,"height":%%d}'
)
_ANNOTATION = (
    ',"image_id":%d,"category_id":%d,"bbox":[%s,%s,%s,%s],"area":%s,"iscrowd":%d,'
    '"label":%s,"ignore":%d,"occlusion":%d,"height":%s%s}'
)
_LEADERBOARD_IMAGE = '{"id":%d,"im_name":"%s","height":%d,"width":%d}'
_LEADERBOARD_ANNOTATION = ',"image_id":%d,"category_id":1,"bbox":[%s,%s,%s,%s],"height":%s,"occlusion":%d,"ignore":%d}'


def categories(layout: str) -> list[dict]:
    if layout == "leaderboard":
        return [{"id": k, "name": n} for k, n in enumerate(CATEGORIES)]
    return [{"id": CATEGORY_ID[n], "name": n} for n in CATEGORIES[1:] + EXTRA_CATEGORIES]


def is_ignored(label: str, ign: int) -> int:
    """Only a person is a pedestrian to detect; every other label, or a flagged box, is ignored."""
    return int(label != "person" or bool(ign))


def format_frames(frames: FrameColumns, objects: ObjectColumns, layout: str) -> tuple[list[str], list[str]]:
    """JSON text of the images and of their annotations (without the leading id).

    ``frames`` come in name order, ``objects`` in output order. Everything is formatted with C-level
    map/zip over whole columns: the XML tree's 95k images and 110k objects take a fraction of a second.
    """
    labels, w, h = objects.label, objects.w, objects.h
    if layout == "leaderboard":
        images = list(map(_LEADERBOARD_IMAGE.__mod__, zip(frames.image_id, frames.name, frames.height, frames.width)))
        # The leaderboard's file: ignore is "label is not person", nothing else.
        ignore = [int(label != "person") for label in labels]
        return images, list(
            map(
                _LEADERBOARD_ANNOTATION.__mod__,
                zip(objects.image_id, objects.x, objects.y, w, h, h, objects.occlusion, ignore),
            )
        )

    images: list[str] = []
    names = frames.name
    start = 0
    while start < len(names):  # one template per video: frames come in name order
        video = names[start][:10]
        stop = start
        while stop < len(names) and names[stop][:10] == video:
            stop += 1
        set_name, video_name = video.split("/")
        template = _IMAGE % (
            set_name,
            video_name,
            set_name,
            video_name,
            set_name,
            video_name,
            set_name,
            video_name,
            period_of(video),
        )
        stems = [name[11:] for name in names[start:stop]]
        images += map(
            template.__mod__,
            zip(
                frames.image_id[start:stop],
                stems,
                stems,
                stems,
                map(int, (s[1:] for s in stems)),
                frames.width[start:stop],
                frames.height[start:stop],
            ),
        )
        start = stop
    quoted = {label: json.dumps(label) for label in set(labels)}
    ignore = list(map(is_ignored, labels, objects.ign))
    visible, paired = objects.visible, objects.paired
    has_extra = any(v is not None for v in visible) or any(p is not None for p in paired)
    extras = map(_extra_fields, visible, paired) if has_extra else repeat("")
    annotations = list(
        map(
            _ANNOTATION.__mod__,
            zip(
                objects.image_id,
                map(CATEGORY_ID.get, labels, repeat(0)),
                objects.x,
                objects.y,
                w,
                h,
                map(mul, w, h),
                ignore,
                map(quoted.__getitem__, labels),
                ignore,
                objects.occlusion,
                h,
                extras,
            ),
        )
    )
    return images, annotations


def _extra_fields(visible: tuple | None, paired: dict | None) -> str:
    out = ',"vis_bbox":[%s,%s,%s,%s]' % visible if visible is not None else ""
    if paired is not None:
        out += (
            ',"bbox_visible":[%s,%s,%s,%s]' % paired["bbox_visible"]
            + ',"bbox_lwir":[%s,%s,%s,%s]' % paired["bbox_lwir"]
            + f',"label_visible":{json.dumps(paired["label_visible"])}'
            + f',"label_lwir":{json.dumps(paired["label_lwir"])}'
        )
    return out


def category_id(bench: Benchmark, label: str) -> int:
    """Another benchmark's class id of a label: its class's (aliases included), the benchmark's first
    class for an ignore label (CVC-14's ``person?``, an uncertain person), else 0 (no class: an ignore
    region, left out by COCO's evaluator)."""
    try:
        return bench.category(label).id
    except KeyError:
        return bench.categories[0].id if label in bench.ignore_labels else 0


def benchmark_categories(bench: Benchmark) -> list[dict]:
    return [{"id": c.id, "name": c.name} for c in bench.categories]


def format_benchmark_frames(
    frames: FrameColumns, objects: ObjectColumns, bench: Benchmark, split: str | None
) -> tuple[list[str], list[str]]:
    """Another benchmark's images and annotations (without their ids), as `format_frames` gives KAIST's.

    An image names both its pictures as the benchmark keeps them, relative to the dataset's root
    (``file_name`` the visible one, ``lwir_file_name`` the thermal one), its frame (``im_name``), size
    and, where the frame name gives one, its period. An annotation has its class's id (0 for a label
    of no class), ``ignore`` (and ``iscrowd``, as KAIST's) for an ignore region, ``label`` as written
    and ``height``.
    """
    visible, thermal = (m.name for m in bench.modalities)
    compact = {"separators": (",", ":")}
    images = []
    for image_id, name, width, height in zip(*frames):
        record = {
            "id": image_id,
            "file_name": bench.picture_path(visible, name, split or ""),
            "lwir_file_name": bench.picture_path(thermal, name, split or ""),
            "im_name": name,
            "width": width,
            "height": height,
        }
        period = bench.frame_parts(name).get("period")
        if period:
            record["period"] = period.lower()
        images.append(json.dumps(record, **compact))
    annotations = []
    for image_id, label, x, y, w, h, ign in zip(
        objects.image_id, objects.label, objects.x, objects.y, objects.w, objects.h, objects.ign
    ):
        category = category_id(bench, label)
        ignore = int(bool(ign) or category == 0)
        record = {
            "image_id": image_id,
            "category_id": category,
            "bbox": [x, y, w, h],
            "area": _area(w, h),
            "iscrowd": ignore,
            "label": label,
            "ignore": ignore,
            "height": h,
        }
        annotations.append("," + json.dumps(record, **compact)[1:])
    return images, annotations


def _area(w, h):
    area = w * h
    return int(area) if isinstance(area, float) and area.is_integer() and abs(area) < 2**53 else area


def coco_pieces(
    info: dict, images: list[bytes], annotations: list[bytes], layout: str, classes: list[dict] | None = None
) -> list[bytes]:
    """The whole file as UTF-8 pieces, from runs of image and of annotation JSON objects (each run
    joined by ",\n"); written one after the other, they need no joining. ``classes``: another
    benchmark's categories (default: the layout's, KAIST's)."""
    return [
        b'{\n"info": ',
        json.dumps(info, indent=1).encode(),
        b',\n"images": [\n',
        *_separated(images),
        b'\n],\n"annotations": [\n',
        *_separated(annotations),
        b'\n],\n"categories": ',
        json.dumps(categories(layout) if classes is None else classes).encode(),
        b"\n}\n",
    ]


def _separated(runs: list[bytes]) -> list[bytes]:
    out = []
    for run in runs:
        out += [b",\n", run] if out else [run]
    return out
