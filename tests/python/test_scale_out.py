# tests/python/test_scale_out.py: examples/scale_out/dask_map.py, a kernel mapped over chunks by a
# dask.distributed LocalCluster whose worker processes share one kernel cache.
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytestmark = pytest.mark.cpu_only  # the workers start their own CPU runtimes

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scale_out" / "dask_map.py"


def test_dask_workers_map_a_kernel_over_chunks_sharing_one_cache(tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, QD_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, str(EXAMPLE), "--n", "50000", "--chunks", "6", "--workers", "2"],
                          env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "chunks: 6, workers: 2" in done.stdout
    assert re.search(r"smooth: max difference from numpy 0\n", done.stdout), done.stdout
    relative = float(re.search(r"energy: relative error (\S+)", done.stdout).group(1))
    assert relative < 1e-12, done.stdout  # float64 accumulation in the kernel
    assert "Warning" not in done.stderr, done.stderr  # the example realigns dask's buffers itself
    for name in ("smooth_chunk", "chunk_energy"):  # one verified library per kernel, whoever compiled it
        assert len(list(cache.glob(f"{name}-*.so"))) == 1
