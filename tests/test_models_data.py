"""The dataset, the pair loading and augmentation, and the per-modality preprocessor."""

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import torch  # noqa: E402
from mmdet.registry import DATASETS, MODELS, TRANSFORMS  # noqa: E402
from mmengine.dataset import Compose  # noqa: E402
from mmengine.registry import init_default_scope  # noqa: E402
from PIL import Image  # noqa: E402

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.converters import convert  # noqa: E402
from kaist_kit.errors import InputError  # noqa: E402

init_default_scope("mmdet")


def _pair(tmp_path, width=160, height=128):
    """A pair whose pictures carry the same asymmetric shape (an L and a dot, top left) at
    different brightness: 240 in colour, 120 in thermal, on black."""
    shape = np.zeros((height, width), np.uint8)
    shape[10:60, 12:20] = 1  # the L's stem
    shape[52:60, 12:50] = 1  # its foot
    shape[20:26, 70:76] = 1  # a dot, right of it
    visible, lwir = tmp_path / "visible.png", tmp_path / "lwir.png"
    Image.fromarray(np.repeat(shape[..., None] * 240, 3, axis=2)).save(visible)
    Image.fromarray(shape * 120).save(lwir)
    return dict(
        img_path=str(visible),
        lwir_path=str(lwir),
        img_id=0,
        instances=[dict(bbox=[12.0, 10.0, 50.0, 60.0], bbox_label=0, ignore_flag=0)],
    )


def _assert_aligned(image):
    visible, lwir = image[..., :3].astype(int), image[..., 3:].astype(int)
    assert (visible == visible[..., :1]).all()  # grey stays grey
    # Wherever the shape is, in whichever state of interpolation, colour is twice thermal.
    assert np.abs(visible[..., 0] - 2 * lwir[..., 0]).max() <= 2
    assert ((visible[..., 0] > 20) == (lwir[..., 0] > 10)).mean() > 0.995
    assert (visible[..., 0] > 100).sum() > 50  # the shape survived


@pytest.mark.parametrize("seed", range(4))
def test_the_pair_stays_pixel_aligned_through_every_geometric_transform(tmp_path, seed):
    np.random.seed(seed)
    pipeline = Compose(
        [
            dict(type="LoadKaistPair"),
            dict(type="LoadAnnotations", with_bbox=True),
            dict(type="RandomResize", scale=(200, 150), ratio_range=(0.7, 1.3), keep_ratio=True),
            dict(type="RandomFlip", prob=1.0, direction="horizontal"),
            dict(type="RandomCrop", crop_size=(120, 100), allow_negative_crop=True),
            dict(type="PadPair", size=(128, 128)),
        ]
    )
    results = pipeline(_pair(tmp_path))
    image = results["img"]
    assert image.shape[2] == 6 and image.shape[:2] == (128, 128)
    _assert_aligned(image)
    assert results["flip"]


def test_the_flip_mirrors_both_modalities_and_the_box(tmp_path):
    results = Compose(
        [
            dict(type="LoadKaistPair"),
            dict(type="LoadAnnotations", with_bbox=True),
            dict(type="RandomFlip", prob=1.0, direction="horizontal"),
        ]
    )(_pair(tmp_path))
    image = results["img"]
    assert image[15:50, 160 - 20 : 160 - 12, 0].min() == 240 and image[15:50, 160 - 20 : 160 - 12, 3].min() == 120
    assert image[20:26, 160 - 76 : 160 - 70, 3].min() == 120  # the dot, mirrored, in thermal too
    assert image[15:50, 12:20].max() == 0
    np.testing.assert_allclose(results["gt_bboxes"].numpy()[0], [110, 10, 148, 60])


def test_photometric_augmentation_is_drawn_per_modality_and_keeps_geometry(tmp_path):
    np.random.seed(3)
    per_modality = dict(
        type="PerModality",
        visible=[dict(type="PhotoMetricDistortion")],
        lwir=[dict(type="PhotoMetricDistortion", hue_delta=0, saturation_range=(1, 1))],
    )
    gains = []
    for _ in range(6):
        results = Compose([dict(type="LoadKaistPair"), per_modality])(_pair(tmp_path))
        image = results["img"].astype(np.float32)
        assert image.shape[2] == 6
        inside, outside = image[15:50, 12:20], image[80:120, 100:150]
        assert (inside.mean(axis=(0, 1)) > outside.mean(axis=(0, 1)) + 20).all()  # nothing moved
        gains.append(inside[..., 0].mean() / 240 - inside[..., 3].mean() / 120)
    # Independent draws: colour and thermal do not change together.
    assert np.std(gains) > 0.02


def test_the_preprocessor_normalises_each_modality_with_its_own_statistics():
    pixels = torch.zeros(6, 4, 4, dtype=torch.uint8)
    pixels[0], pixels[1], pixels[2] = 10, 20, 30  # visible B, G, R
    pixels[3:] = 100  # lwir
    mean = dict(visible=[1.0, 2.0, 3.0], lwir=[50.0])
    std = dict(visible=[1.0, 2.0, 3.0], lwir=[25.0])
    both = MODELS.build(dict(type="PairDataPreprocessor", mean=mean, std=std))
    out = both({"inputs": [pixels]})["inputs"][0]
    np.testing.assert_allclose(out[:, 0, 0].numpy(), [29.0, 9.0, 7 / 3, 2.0, 2.0, 2.0], rtol=1e-6)  # R, G, B, lwir
    thermal = MODELS.build(dict(type="PairDataPreprocessor", mean=mean, std=std, modalities=("lwir",)))
    out = thermal({"inputs": [pixels]})["inputs"][0]
    assert out.shape[0] == 3 and torch.allclose(out, torch.full_like(out, 2.0))
    colour = MODELS.build(
        dict(type="PairDataPreprocessor", mean=mean, std=std, modalities=("visible",), pad_size_divisor=32)
    )
    out = colour({"inputs": [pixels]})["inputs"]
    assert out.shape == (1, 3, 32, 32)


def test_the_dataset_reads_both_pictures_and_makes_ignore_instances(tiny_synth):
    dataset = DATASETS.build(
        dict(type="KaistDataset", data_root=str(tiny_synth), ann_file="test.json", test_mode=True, pipeline=[])
    )
    data = json.loads((tiny_synth / "test.json").read_text())
    assert len(dataset) == len(data["images"]) and dataset.metainfo["ann_file"] == str(tiny_synth / "test.json")
    flags = [i["ignore_flag"] for k in range(len(dataset)) for i in dataset.get_data_info(k)["instances"]]
    kept = [a for a in data["annotations"] if a["bbox"][2] >= 1 and a["bbox"][3] >= 1]
    assert flags == [a["ignore"] for a in kept] and 0 in flags and 1 in flags
    info = dataset.get_data_info(0)
    assert info["img_path"].endswith("visible/I00019.jpg") and info["lwir_path"].endswith("lwir/I00019.jpg")
    assert info["period"] == "day"


def test_the_leaderboard_layout_finds_the_pictures_from_the_frame_names(tiny_synth, tmp_path):
    convert(
        "improved",
        tiny_synth / "annotations-improved",
        tmp_path / "leaderboard.json",
        compat="leaderboard",
        image_size=(160, 128),
    )
    dataset = DATASETS.build(
        dict(
            type="KaistDataset",
            data_root=str(tiny_synth),
            ann_file=str(tmp_path / "leaderboard.json"),
            test_mode=True,
            pipeline=[],
        )
    )
    kit = DATASETS.build(
        dict(type="KaistDataset", data_root=str(tiny_synth), ann_file="test.json", test_mode=True, pipeline=[])
    )
    for k in range(len(dataset)):
        a, b = dataset.get_data_info(k), kit.get_data_info(k)
        assert (a["img_id"], a["img_path"], a["lwir_path"], a["period"]) == (
            b["img_id"],
            b["img_path"],
            b["lwir_path"],
            b["period"],
        )


def test_training_can_leave_out_frames_without_pedestrians(tiny_synth):
    config = dict(type="KaistDataset", data_root=str(tiny_synth), ann_file="train.json", pipeline=[])
    every = DATASETS.build(config)
    some = DATASETS.build(dict(config, filter_cfg=dict(filter_empty_gt=True)))
    assert 0 < len(some) < len(every)


def test_missing_and_broken_pictures_are_one_line_errors(tiny_synth, tmp_path):
    with pytest.raises(InputError, match="pictures of the 8 frames are missing"):
        DATASETS.build(
            dict(type="KaistDataset", data_root=str(tmp_path), ann_file=str(tiny_synth / "test.json"), pipeline=[])
        )
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a picture")
    load = TRANSFORMS.build(dict(type="LoadKaistPair"))
    with pytest.raises(InputError, match="cannot decode"):
        load(dict(img_path=str(broken), lwir_path=str(broken)))
    with pytest.raises(InputError, match="no such picture"):
        load(dict(img_path=str(tmp_path / "gone.jpg"), lwir_path=str(broken)))


def _plain_shift(image, dx, dy, fill):
    """Reference: roll the picture, then paint over the part that wrapped around."""
    height, width = image.shape[:2]
    rolled = np.roll(image, (dy, dx), axis=(0, 1)).copy()
    rows, columns = np.arange(height), np.arange(width)
    wrapped = ((rows < dy) | (rows >= height + dy))[:, None] | ((columns < dx) | (columns >= width + dx))[None, :]
    rolled[wrapped] = fill
    return rolled


def test_shifting_a_picture_equals_rolling_it_and_filling_the_border():
    from kaist_kit.models.data import shift_picture

    rng = np.random.default_rng(12)
    for _ in range(200):
        height, width = rng.integers(1, 12, size=2)
        image = rng.integers(0, 256, size=(height, width, 3), dtype=np.uint8)
        dx, dy = rng.integers(-14, 15, size=2)
        fill = rng.integers(0, 256, size=3, dtype=np.uint8)
        expected = (
            _plain_shift(image, dx, dy, fill)
            if abs(dx) < width and abs(dy) < height
            else np.broadcast_to(fill, image.shape)
        )
        assert np.array_equal(shift_picture(image, int(dx), int(dy), fill), expected), (height, width, dx, dy)


def test_shift_lwir_moves_the_thermal_picture_only_and_fills_with_its_mean(tmp_path):
    pair = _pair(tmp_path)
    load = TRANSFORMS.build(dict(type="LoadKaistPair"))
    original = load(dict(pair))["img"]
    shifted = TRANSFORMS.build(dict(type="ShiftLwir", shift=(6, -4)))(load(dict(pair)))["img"]
    assert np.array_equal(shifted[..., :3], original[..., :3])
    assert np.array_equal(shifted[:-4, 6:, 3:], original[4:, :-6, 3:])
    mean = np.rint(original[..., 3:].mean(axis=(0, 1)))
    assert (shifted[-4:, :, 3:] == mean).all() and (shifted[:, :6, 3:] == mean).all()
    assert 0 < mean[0] < 120  # the mean of a mostly black picture with a bright shape
    unmoved = TRANSFORMS.build(dict(type="ShiftLwir", shift=(0, 0)))(load(dict(pair)))["img"]
    assert np.array_equal(unmoved, original)


def test_joining_channels_with_opencv_equals_numpy_s_concatenation():
    from kaist_kit.models.data import join_channels

    rng = np.random.default_rng(4)
    for dtype in (np.uint8, np.float32):
        for height, width in ((1, 1), (7, 5), (128, 160)):
            pictures = [(rng.random((height, width, 3)) * 300 - 20).astype(dtype) for _ in range(2)]
            joined = join_channels(pictures)
            assert joined.dtype == dtype and np.array_equal(joined, np.concatenate(pictures, axis=2))
    image = rng.integers(0, 256, (32, 48, 6), dtype=np.uint8)
    unchanged = TRANSFORMS.build(dict(type="PerModality"))(dict(img=image.copy()))["img"]
    assert np.array_equal(unchanged, image)
