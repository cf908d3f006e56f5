# tests/python/test_fork.py: kernels keep working in processes forked after qd.init() (os.fork, multiprocessing, DataLoader).
"""fork() copies only the calling thread, so a child once waited forever for the thread pool's
workers. Each scenario runs in its own process session with a time limit, so a regression fails
(and its children are killed) instead of hanging the suite."""

import importlib.util
import os
import signal
import subprocess
import sys
import textwrap

import pytest

# Forking a CUDA context is not supported by CUDA itself; these check the CPU thread pool.
pytestmark = pytest.mark.cpu_only

TIME_LIMIT_S = 60

PRELUDE = """
import os, sys, threading, time
import numpy as np
import quadrants as qd

# Four threads even on a smaller machine, so the pool has workers the child does not inherit.
qd.init(arch=qd.cpu, cpu_max_num_threads=4)
N = 1 << 20  # far above the grain: the loop runs on the pool

@qd.kernel
def add_one(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in a:
        a[i] += 1.0

def child_exit_code(pid):
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)

x = np.zeros(N, np.float32)
add_one(x)  # the parent's pool is running now
"""


def run_scenario(tmp_path, body):
    """Runs PRELUDE + body in a new session; returns its stdout, failing on an error or a hang."""
    script = tmp_path / "scenario.py"  # a file, since kernels are compiled from their source
    script.write_text(PRELUDE + textwrap.dedent(body))
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # so a hang can be ended with every process it forked
    )
    try:
        out, err = proc.communicate(timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"hung for {TIME_LIMIT_S} s (a forked child waiting for the parent's threads?)\n{out}\n{err}")
    assert proc.returncode == 0, f"exit status {proc.returncode}\n{out}\n{err}"
    return out


def test_forked_child_runs_a_parallel_kernel(tmp_path):
    out = run_scenario(tmp_path, """
        pid = os.fork()
        if pid == 0:
            add_one(x)  # on the child's copy of x
            os._exit(0 if (x == 2).all() else 3)
        print("child", child_exit_code(pid))
        print("parent", int((x == 1).all()))
        add_one(x)  # the parent's pool still works
        print("parent again", int((x == 2).all()))
    """)
    assert out.split("\n")[:3] == ["child 0", "parent 1", "parent again 1"]


def test_forked_child_exits_normally_with_and_without_launching(tmp_path):
    # A normal exit runs the C++ static destructors, which once joined the parent's workers.
    out = run_scenario(tmp_path, """
        for launch in (False, True):
            pid = os.fork()
            if pid == 0:
                if launch:
                    add_one(x)
                sys.exit(0)
            print("child", launch, child_exit_code(pid))
    """)
    assert out.split("\n")[:2] == ["child False 0", "child True 0"]


def test_forked_child_can_init_again(tmp_path):
    out = run_scenario(tmp_path, """
        kept = qd.ndarray(qd.f32, (N,))
        pid = os.fork()
        if pid == 0:
            qd.init(arch=qd.cpu, cpu_max_num_threads=3)  # frees `kept`, makes a pool of 3
            y = np.zeros(N, np.float32)
            add_one(y)
            fresh = qd.ndarray(qd.f32, (N,))
            add_one(fresh)
            ok = (y == 1).all() and (fresh.to_numpy() == 1).all() and qd.runtime._core.num_threads() == 3
            os._exit(0 if ok else 3)
        print("child", child_exit_code(pid))
        add_one(kept)
        print("parent", int((kept.to_numpy() == 1).all()))
    """)
    assert out.split("\n")[:2] == ["child 0", "parent 1"]


def test_fork_while_another_thread_runs_a_kernel(tmp_path):
    # The running kernel holds the launch gate shared; qd.init() in the child takes it exclusively
    # (to free `kept`), which once waited for a thread the child does not have.
    out = run_scenario(tmp_path, """
        @qd.kernel
        def slow(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            for i in a:
                v = a[i]
                for k in range(6000):
                    v = v * 0.999 + 0.001
                a[i] = v

        kept = qd.ndarray(qd.f32, (16,))
        big = np.zeros(N, np.float32)
        slow(big[:1024])  # compiled before the race
        started = threading.Event()
        def run():
            started.set()
            slow(big)
        worker = threading.Thread(target=run)
        worker.start()
        started.wait()
        time.sleep(0.1)  # inside the kernel (about 0.4 s), most likely; the test passes either way if not
        pid = os.fork()
        if pid == 0:
            qd.init(arch=qd.cpu, cpu_max_num_threads=4)
            y = np.zeros(N, np.float32)
            add_one(y)
            os._exit(0 if (y == 1).all() else 3)
        worker.join()
        print("child", child_exit_code(pid))
    """)
    assert out.split("\n")[0] == "child 0"


def test_multiprocessing_fork_pool(tmp_path):
    out = run_scenario(tmp_path, """
        import multiprocessing

        def work(k):
            a = np.full(N, k, np.float32)
            add_one(a)
            return float(a[0] + a[-1])

        with multiprocessing.get_context("fork").Pool(2) as pool:
            print(pool.map(work, range(6)))
    """)
    assert out.split("\n")[0] == str([2.0 * (k + 1) for k in range(6)])


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_torch_dataloader_workers_launch_kernels(tmp_path):
    out = run_scenario(tmp_path, """
        import torch
        from torch.utils.data import DataLoader, Dataset

        class Shifted(Dataset):
            def __len__(self):
                return 8

            def __getitem__(self, k):
                a = np.full(N, k, np.float32)
                add_one(a)
                return float(a[N // 2])

        loader = DataLoader(Shifted(), batch_size=2, num_workers=2, multiprocessing_context="fork")
        start = time.perf_counter()
        values = [v for batch in loader for v in batch.tolist()]
        print(values)
        print(f"{time.perf_counter() - start:.1f}")
    """)
    lines = out.split("\n")
    assert lines[0] == str([float(k + 1) for k in range(8)])
    assert float(lines[1]) < 30, f"the DataLoader took {lines[1]} s"
