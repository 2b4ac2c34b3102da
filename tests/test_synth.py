"""The synthetic KAIST: deterministic, KAIST-like statistics, and modalities that each fall short."""

import hashlib

import numpy as np
import pytest
from PIL import Image

from kaist_kit.converters import convert
from kaist_kit.data.imagesets import read_image_list, standard_list
from kaist_kit.datasets.kaist_truth import load_ground_truth
from kaist_kit.errors import InputError
from kaist_kit.tools.synth import SynthConfig, generate


def tree_digest(root):
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != "synth.json"):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("synth") / "kaist"
    generate(root, SynthConfig(seed=11, train_frames=0, test_frames=120))
    gt_path = root.parent / "gt.json"
    convert("original", root / "annotations", gt_path)
    return root, load_ground_truth(gt_path)


def test_same_seed_same_files_other_seed_other_files(tmp_path):
    config = SynthConfig(seed=5, train_frames=4, test_frames=4, width=128, height=96)
    generate(tmp_path / "a", config)
    generate(tmp_path / "b", config)
    generate(tmp_path / "c", SynthConfig(seed=6, train_frames=4, test_frames=4, width=128, height=96))
    assert tree_digest(tmp_path / "a") == tree_digest(tmp_path / "b") != tree_digest(tmp_path / "c")
    with pytest.raises(InputError, match="not empty"):
        generate(tmp_path / "a", config)


def test_layout_and_lists(tmp_path):
    root = tmp_path / "kaist"
    generate(root, SynthConfig(seed=1, train_frames=6, test_frames=4, width=160, height=128))
    frames = [
        p.relative_to(root / "annotations").with_suffix("").as_posix()
        for p in sorted((root / "annotations").rglob("*.txt"))
    ]
    assert len(frames) == 10
    for name in ("train-all-02", "train-day-02", "train-night-02", "test-all-20", "test-day-20", "test-night-20"):
        path = root / "imageSets" / f"{name}.txt"
        assert path.read_bytes().endswith(b"\r\n")
        assert read_image_list(path) == standard_list(name, frames)
    assert len(read_image_list(root / "imageSets" / "train-all-02.txt")) == 6
    for frame in frames:
        s, v, i = frame.split("/")
        for modality in ("visible", "lwir"):
            with Image.open(root / "images" / s / v / modality / f"{i}.jpg") as picture:
                assert picture.size == (160, 128)


def test_kaist_like_statistics(dataset):
    _, gt = dataset
    persons = np.array([label == "person" for label in gt.labels])
    heights = gt.heights[persons]
    assert 44 <= np.median(heights) <= 56
    assert 0.6 <= np.mean((heights >= 30) & (heights <= 80)) <= 0.95
    aspect = gt.boxes[persons, 2] / gt.boxes[persons, 3]
    assert abs(np.median(aspect) - 0.41) < 0.03
    assert {"person", "people", "cyclist", "person?"} <= set(gt.labels)
    assert 0.1 <= np.mean(gt.occlusion[persons] > 0) <= 0.4 and (gt.occlusion[persons] == 2).any()
    assert sorted(set(gt.image_periods)) == ["day", "night"]
    per_image = np.bincount(gt.ann_image, minlength=gt.n_images)
    assert 0.2 <= np.mean(per_image == 0) <= 0.5


def box_contrast(root, gt, modality, period):
    """Colour distance between a pedestrian's middle and the strips beside its box (per channel, RMS):
    how well a pedestrian stands out."""
    values = []
    for k in np.flatnonzero(~gt.ignore):
        image = gt.ann_image[k]
        if gt.image_periods[image] != period or gt.occlusion[k]:
            continue
        s, v, i = gt.image_names[image].split("/")
        with Image.open(root / "images" / s / v / modality / f"{i}.jpg") as picture:
            pixels = np.asarray(picture.convert("RGB"), np.float32)
        x, y, w, h = gt.boxes[k].astype(int)
        if x < 4 or y < 4 or x + w > pixels.shape[1] - 4 or y + h > pixels.shape[0] - 4:
            continue
        inside = pixels[y + h // 4 : y + 3 * h // 4, x + w // 3 : x + 2 * w // 3].reshape(-1, 3).mean(0)
        ring = np.concatenate(
            [
                pixels[y : y + h, max(0, x - w // 2) : x].reshape(-1, 3),
                pixels[y : y + h, x + w : x + w + w // 2].reshape(-1, 3),
            ]
        ).mean(0)
        values.append(np.linalg.norm(inside - ring) / np.sqrt(3))
    return np.array(values)


def test_each_modality_alone_falls_short(dataset):
    root, gt = dataset
    colour_day, colour_night = box_contrast(root, gt, "visible", "day"), box_contrast(root, gt, "visible", "night")
    thermal_day, thermal_night = box_contrast(root, gt, "lwir", "day"), box_contrast(root, gt, "lwir", "night")
    # Colour shows pedestrians by day and loses most of them at night (but for those under lamps).
    assert np.median(colour_day) > 20 > 5 > np.median(colour_night)
    assert 0.6 < np.mean(colour_night < 5)
    # Thermal shows them at night; by day a good share nearly vanish before warm walls.
    assert np.median(thermal_night) > 60
    assert np.mean(thermal_day < 15) > 0.2 > 0.02 > np.mean(thermal_night < 15)
