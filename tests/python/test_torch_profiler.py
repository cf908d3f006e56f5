# tests/python/test_torch_profiler.py: kernel launches appear by name in torch.profiler, only while it records.
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import quadrants as qd

torch = pytest.importorskip("torch")
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402

# Under QD_TEST_ARCH=cuda host tensors are copied to the device, with a warning that is noise here.
pytestmark = pytest.mark.filterwarnings("ignore:Kernel .* is in host memory:RuntimeWarning")


@qd.kernel
def profiled_square(x: qd.types.ndarray(), y: qd.types.ndarray()):
    for i in x:
        y[i] = x[i] * x[i]


@qd.kernel
def profiled_scale(x: qd.types.ndarray(), factor: qd.template()):
    for i in x:
        x[i] *= factor


@qd.kernel
def profiled_checked(x: qd.types.ndarray()):
    for i in x:
        assert x[i] >= 0, "negative"


def _counts(prof):
    return {event.key: event.count for event in prof.key_averages()}


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu)


def test_launches_inside_a_profile_are_events_named_after_the_kernel():
    x, y = torch.arange(8, dtype=torch.float32), torch.zeros(8)
    profiled_square(x, y)  # compile outside the profile
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            profiled_square(x, y)
    assert _counts(prof).get("profiled_square") == 3
    assert torch.equal(y, x * x)


def test_only_launches_while_recording_are_events():
    x, y = torch.ones(4), torch.zeros(4)
    with profile(activities=[ProfilerActivity.CPU]) as first:
        profiled_square(x, y)
    for _ in range(5):
        profiled_square(x, y)  # no profiler: not recorded anywhere
    with profile(activities=[ProfilerActivity.CPU]) as second:
        profiled_square(x, y)
        profiled_square(x, y)
    assert _counts(first)["profiled_square"] == 1
    assert _counts(second)["profiled_square"] == 2


def test_kernels_nest_under_record_function_and_numpy_arguments_count_too():
    a = np.ones(16, np.float32)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("training_step"):
            profiled_square(a, a)
            profiled_scale(a, 2.0)  # a template kernel: dispatched in Python first
    counts = _counts(prof)
    assert counts["training_step"] == 1 and counts["profiled_square"] == 1 and counts["profiled_scale"] == 1
    step = next(e for e in prof.events() if e.name == "training_step")
    assert {"profiled_square", "profiled_scale"} <= {child.name for child in step.cpu_children}
    np.testing.assert_array_equal(a, 2.0)


def test_a_failing_launch_closes_its_range_and_profiling_goes_on():
    qd.init(arch=qd.cpu, debug=True)
    bad, good = torch.tensor([1.0, -1.0]), torch.ones(2)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with pytest.raises(Exception, match="negative"):
            profiled_checked(bad)
        profiled_checked(good)
    assert _counts(prof)["profiled_checked"] == 2


def test_torch_imported_after_the_first_launches_is_noticed_and_launches_never_import_it(tmp_path):
    program = textwrap.dedent("""
        import sys
        import numpy as np
        import quadrants as qd

        qd.init(arch=qd.cpu)

        @qd.kernel
        def late(a: qd.types.ndarray()):
            for i in a:
                a[i] += 1.0

        a = np.zeros(4, np.float32)
        for _ in range(3):
            late(a)
        assert "torch" not in sys.modules, "a launch imported torch"
        import torch
        with torch.profiler.profile() as prof:
            late(a)
        print(sorted(e.key for e in prof.key_averages()))
    """)
    script = tmp_path / "late_torch.py"  # a file: kernels need their source
    script.write_text(program)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "'late'" in result.stdout
