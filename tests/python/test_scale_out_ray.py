# tests/python/test_scale_out_ray.py: examples/scale_out/ray_map.py, a kernel mapped over chunks by the actors
# of a local Ray instance (ray.init(num_cpus=2)), whose worker processes share one kernel cache.
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytestmark = pytest.mark.cpu_only  # the workers start their own CPU runtimes

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scale_out" / "ray_map.py"


def test_ray_workers_map_a_kernel_over_chunks_sharing_one_cache(tmp_path):
    cache = tmp_path / "cache"
    # RAY_TMPDIR: Ray's session files in a folder of this test's, not /tmp/ray shared with other runs; a short
    # one, as Ray's socket paths under it must fit in 107 bytes (pytest's tmp_path is too deep).
    ray_tmp = tempfile.mkdtemp(prefix="qdray")
    try:
        env = dict(os.environ, QD_CACHE_DIR=str(cache), RAY_TMPDIR=ray_tmp)
        done = subprocess.run([sys.executable, str(EXAMPLE), "--n", "50000", "--chunks", "6", "--workers", "2"],
                              check=False, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "chunks: 6, workers: 2" in done.stdout
    assert "worker processes that ran chunks: 2" in done.stdout, done.stdout  # both actors did work
    assert re.search(r"smooth: max difference from numpy 0\n", done.stdout), done.stdout
    relative = float(re.search(r"energy: relative error (\S+)", done.stdout).group(1))
    assert relative < 1e-12, done.stdout  # float64 accumulation in the kernel
    for name in ("smooth_chunk", "chunk_energy"):  # one verified library per kernel, whoever compiled it
        assert len(list(cache.glob(f"{name}-*.so"))) == 1
