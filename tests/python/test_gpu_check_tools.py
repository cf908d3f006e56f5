# tests/python/test_gpu_check_tools.py: the pure parts of the GPU run's helpers (issue 33) on made-up records: the
# per-environment comparison of scripts/genesis_gpu_scenes.py and upstream_gpu_files.py's choice of GPU-only files.
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.cpu_only  # scripts only; nothing differs on CUDA

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import genesis_gpu_scenes  # noqa: E402
import upstream_gpu_files  # noqa: E402


def record(box_x, step_s=0.002, build_s=10.0):
    """A scene record of two environments; box_x gives each environment's x."""
    state = {"box_pos": [[x, 0.0, 0.1] for x in box_x], "sphere_pos": [[0.5, 0.0, 0.1], [0.5, 0.0, 0.1]]}
    run = {"n_envs": 2, "steps": 100, "build_s": build_s, "first_step_s": 0.5, "step_s": step_s,
           "env_steps_per_s": 2 / step_s, "state": state}
    return {"quadrants": "x", "scenes": {"rigid": {"status": "PASS", "runs": {"2": run}}}}


def compare(tmp_path, ours, ref, capsys):
    paths = []
    for name, data in (("ours", ours), ("ref", ref)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(data))
    rows, code = genesis_gpu_scenes.compare(str(paths[0]), str(paths[1]), 1e-3)
    return rows, code, capsys.readouterr().out


def test_matching_states_and_the_speedup(tmp_path, capsys):
    rows, code, out = compare(tmp_path, record([0.0, 0.05], step_s=0.001), record([0.0, 0.0505], step_s=0.002),
                              capsys)
    assert code == 0 and rows[0]["verdict"] == "MATCH" and rows[0]["envs_over_tolerance"] == 0
    assert rows[0]["largest_difference"] == pytest.approx(5e-4)
    assert "| rigid | 2 | MATCH" in out and "| 2.00x |" in out  # 1.3.3's step over ours


def test_one_environment_past_the_tolerance_is_named(tmp_path, capsys):
    rows, code, _ = compare(tmp_path, record([0.0, 0.05]), record([0.0, 0.052]), capsys)
    assert code == 1 and rows[0]["verdict"] == "DIFFER" and rows[0]["envs_over_tolerance"] == 1
    assert rows[0]["where"].startswith("box_pos[env 1]")


def test_nan_on_one_side_differs_and_a_failed_scene_is_not_compared(tmp_path, capsys):
    rows, code, _ = compare(tmp_path, record([0.0, float("nan")]), record([0.0, 0.05]), capsys)
    assert code == 1 and rows[0]["envs_over_tolerance"] == 1
    failed = record([0.0, 0.05])
    failed["scenes"]["rigid"] = {"status": "FAIL", "error": ["RuntimeError: x"]}
    rows, code, out = compare(tmp_path, record([0.0, 0.05]), failed, capsys)
    assert code == 1 and rows[0]["verdict"] == "NOT COMPARED" and "not compared: ours PASS, 1.3.3 FAIL" in out


def test_scene_script_rejects_bad_arguments():
    script = str(ROOT / "scripts" / "genesis_gpu_scenes.py")
    proc = subprocess.run([sys.executable, script, "--scenes", "boat"], capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown scenes ['boat']" in proc.stderr
    proc = subprocess.run([sys.executable, script, "--steps", "5", "--warmup", "10"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--steps (5) must exceed --warmup (10)" in proc.stderr


def test_gpu_only_files_are_those_with_cuda_tests_and_no_cpu_ones():
    cpu = {"tests/python/test_a.py": {"t1": {"x64"}, "t2": set()},  # t2: skipped on the CPU
           "tests/python/test_simt.py": {"t1": set(), "t2": set()}}
    cuda = {"tests/python/test_a.py": {"t1": {"cuda"}, "t2": {"cuda"}},
            "tests/python/test_simt.py": {"t1": {"cuda"}, "t2": set()},
            "tests/python/test_other.py": {"t1": set()}}
    only, mixed = upstream_gpu_files.gpu_only(cpu, cuda)
    assert only == {"tests/python/test_simt.py": 1}
    assert mixed == {"tests/python/test_a.py": 1}


def test_a_scene_killed_in_its_large_batch_keeps_the_small_one(tmp_path, capsys):
    partial = record([0.0, 0.05])
    partial["scenes"]["rigid"]["status"] = "PARTIAL"
    rows, code, out = compare(tmp_path, partial, record([0.0, 0.05]), capsys)
    assert rows[0]["verdict"] == "MATCH" and code == 0
    died_early = record([0.0, 0.05])
    died_early["scenes"]["rigid"] = {"status": "PARTIAL"}  # killed before its first batch size finished
    rows, code, out = compare(tmp_path, died_early, record([0.0, 0.05]), capsys)
    assert code == 1 and rows[0]["verdict"] == "NOT COMPARED" and "ours PARTIAL, 1.3.3 PASS" in out
