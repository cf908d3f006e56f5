# tests/python/test_distributed.py: kernels in 2 torch.distributed processes (gloo): examples/distributed.py.
import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("torch")
import torch.distributed  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not torch.distributed.is_available() or not torch.distributed.is_gloo_available(),
                       reason="torch.distributed with the gloo backend is not available"),
    pytest.mark.skipif(os.environ.get("QD_TEST_ARCH") == "cuda", reason="the example runs its ranks on the CPU"),
]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_two_ranks_all_reduce_kernel_results_and_train_through_a_kernel_with_ddp(tmp_path):
    out = tmp_path / "result.json"
    env = dict(os.environ, QD_NUM_THREADS="1")
    result = subprocess.run([sys.executable, os.path.join(REPO, "examples", "distributed.py"), "--out", str(out)],
                            capture_output=True, text=True, timeout=300, env=env, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    got = json.loads(out.read_text())

    # the same data the example builds, computed here with numpy alone
    rng = np.random.default_rng(3)
    x = rng.normal(size=10_000)
    target = 3.0 * x + 1.0 + 0.1 * rng.normal(size=10_000)
    assert got["total"] == pytest.approx(np.sum(x * np.exp(-x * x)), rel=1e-12, abs=1e-9)
    residual = 0.5 * x - 0.25 - target  # the model's starting weights are (0.5, -0.25)
    expected_grad = [np.mean(2 * residual * x), np.mean(2 * residual)]
    np.testing.assert_allclose(got["ddp_grad"], expected_grad, rtol=1e-4)
