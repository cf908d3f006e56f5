# tests/python/test_soak_slice.py: a short slice of benchmarks/soak.py (issue 34): memory flat over repeated steps,
# and specializations with fresh template values sharing one loaded library when their code is the same.
import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.cpu_only  # resident memory and mappings of the host process

SOAK = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "soak.py")


def soak(*args):
    env = {**os.environ, "QD_CHECK_CUDA": "0"}
    done = subprocess.run([sys.executable, SOAK, *args], capture_output=True, text=True, timeout=600, env=env)
    return done.returncode, done.stdout + done.stderr


def test_a_solver_step_loop_keeps_its_memory_and_compiles_nothing_new():
    code, out = soak("steps", "--steps", "1500", "--sample", "300", "--slack-kib", "1024")
    assert code == 0, out
    assert "grew by at most" in out


def test_fresh_template_values_whose_code_is_the_same_share_one_library():
    """Every launch is a new specialization (its own entry, compiled or loaded), but all load the same library:
    memory mappings stay flat instead of growing by a loaded copy per value."""
    code, out = soak("templates", "--launches", "1500", "--report-every", "500")
    assert code == 0, out
    rows = [list(map(int, line.split()[:5])) for line in out.splitlines() if re.match(r"\s+\d+\s+\d+\s+\d+", line)]
    (first, compiled_first, entries_first, _, maps_first), (last, compiled_last, entries_last, _, maps_last) = \
        rows[0], rows[-1]
    assert (first, last) == (500, 1500) and entries_last == 1500, out
    assert compiled_last - compiled_first == 1000, out  # each fresh value is one more specialization
    assert maps_last - maps_first < 50, out  # no mapping per specialization
