"""The README's "Other benchmarks" block, run as written: in a fresh folder holding what its commands
name (a reader's detections, generated here; the public M3FD test file; synthetic LLVIP and CVC-14
folders in their native layout), with FLIR-aligned's pinned file fetched from the shared copy through
its mirror variable, so that nothing is downloaded."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from test_benchmark_scoring import FLIR_TEST, M3FD_TEST, generated_detections, real, write_json

from kaist_kit.benchmark_readers import read_benchmark
from kaist_kit.benchmark_synth import BenchmarkSynthConfig, generate_benchmark
from kaist_kit.data.groundtruth import read_ground_truth

ROOT = Path(__file__).resolve().parents[1]


def other_benchmarks_block() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Other benchmarks\n", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"^```bash\n(.*?)^```", section, re.S | re.M)
    return block


def test_the_other_benchmarks_block_runs_as_written(tmp_path):
    flir, m3fd = real(FLIR_TEST), real(M3FD_TEST)
    work = tmp_path / "work"
    work.mkdir()
    shutil.copyfile(m3fd, work / "m3fd-test.json")
    generate_benchmark("llvip", work / "LLVIP", BenchmarkSynthConfig(seed=1, train_frames=1, test_frames=6))
    generate_benchmark("cvc-14", work / "CVC-14", BenchmarkSynthConfig(seed=1, train_frames=1, test_frames=6))
    flir_gt = read_ground_truth(flir, "flir-aligned")
    write_json(work / "fusion_flir.json", generated_detections(flir_gt, seed=1))
    write_json(work / "other_flir.json", generated_detections(flir_gt, seed=2))
    write_json(work / "fusion_m3fd.json", generated_detections(read_ground_truth(m3fd, "m3fd"), seed=3))
    for name, folder, out in (("llvip", "LLVIP", "fusion_llvip.json"), ("cvc-14", "CVC-14", "fusion_cvc14.json")):
        annotations = read_benchmark(name, work / folder, "test")
        write_json(work / out, generated_detections(annotations, seed=4, drop=0, background=5))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("KAIST_KIT_OFFLINE", "KAIST_KIT_FLIR_ALIGNED_GT", "KAIST_KIT_M3FD_GT")
    }
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        XDG_DATA_HOME=str(tmp_path / "data"),
        KAIST_KIT_FLIR_ALIGNED_GT_URL=flir.as_uri(),
    )
    proc = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", other_benchmarks_block()],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    for title in ("FLIR-aligned: Average precision", "M3FD: Average precision", "LLVIP: Log-average miss rate"):
        assert title in proc.stdout, title
    assert "benchmark: m3fd (recognised from the ground truth" in proc.stderr
    assert (
        read_ground_truth(work / "llvip-test.json", "llvip").image_names
        == read_benchmark("llvip", work / "LLVIP", "test").image_names
    )
    assert (work / "llvip-190001.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (work / "llvip-synth" / "Annotations").is_dir()
    rows = json.loads((work / "cvc14.json").read_text())["results"]
    assert {r["category"] for r in rows} == {"person"} and {r["protocol"] for r in rows} == {"ms-detr", "matlab"}
