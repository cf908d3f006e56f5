# tests/python/test_ir_dumps.py: the IR debug switches as programs use them: QD_DUMP_IR=1 writes a file per
# pipeline stage into debug_dump_path (upstream's switch and option), print_ir=True prints to stdout, and
# qd.loop_config(name=...) names a loop's task in both.
import numpy as np
import pytest

import quadrants as qd


def compile_three_loops(offset):
    """Runs a kernel of three loops; each `offset` gives other IR, so no compile reuses an earlier one's result."""

    @qd.kernel
    def three_loops(a: qd.types.ndarray(dtype=qd.i32, ndim=1), b: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(name="fill_a")
        for i in range(8):
            a[i] = i + offset
        qd.loop_config(block_dim=64)  # a config without a name: the loop stays unnamed
        for i in range(8):
            b[i] = 2 * i
        s = 0
        qd.loop_config(serialize=True, name="running sum")
        for i in range(8):
            s += a[i]
            b[i] += s

    a, b = np.zeros(8, np.int32), np.zeros(8, np.int32)
    three_loops(a, b)
    np.testing.assert_array_equal(a, np.arange(8) + offset)
    np.testing.assert_array_equal(b, 2 * np.arange(8) + np.cumsum(np.arange(8) + offset))


def first_compile(directory):
    """The dump files of the first compile of three_loops: NAME_SEQ_STEP_STAGE.ir with the lowest SEQ (the test
    command's QD_CHECK_CUDA=1 compiles each kernel for CUDA too, a second compile with files of its own)."""
    files = sorted(directory.glob("three_loops_*.ir"))
    assert files, sorted(p.name for p in directory.iterdir())
    seq = files[0].name.split("_")[2]
    return [f for f in files if f.name.split("_")[2] == seq]


def dumped(directory, stage):
    files = [f for f in first_compile(directory) if f.name.endswith(f"_{stage}.ir")]
    assert len(files) == 1, [f.name for f in first_compile(directory)]
    return files[0].read_text()


def offload_section(out, kernel):
    """print_ir's `// IR after offload` text of the first compile of `kernel`, up to the next `// IR` line."""
    start = out.index(f"// IR after offload\n// kernel {kernel}:")
    end = out.find("// IR", start + 1)
    return out[start:end if end >= 0 else len(out)]


def test_dump_ir_writes_a_file_per_stage_into_debug_dump_path(tmp_path, monkeypatch):
    monkeypatch.setenv("QD_DUMP_IR", "1")
    qd.init(arch=qd.cpu, debug_dump_path=str(tmp_path / "dumps"), offline_cache=False)  # created when missing
    compile_three_loops(1)
    directory = tmp_path / "dumps"
    stages = [p.name.split("_", 4)[4] for p in first_compile(directory)]
    assert stages == ["from_frontend.ir", "after_check_control_flow.ir", "after_check_names.ir",
                      "after_infer_types.ir", "after_simplify.ir", "after_debug_checks.ir", "after_validate_access.ir",
                      "after_reverse_ad.ir", "after_forward_ad.ir", "after_privatize_atomics.ir", "after_offload.ir"]
    typed = dumped(directory, "after_infer_types")
    assert typed.startswith("// IR after infer_types\n(kernel three_loops\n")
    assert '(config (block_dim 0) (serialize 0) (name "fill_a"))' in typed
    assert '(config (block_dim 64) (serialize 0))' in typed
    offload = dumped(directory, "after_offload")
    tasks = [line for line in offload.splitlines() if line.startswith("// task")]
    assert tasks == ["// task 0: parallel_for loop_name=fill_a", "// task 1: parallel_for", "// task 2: serial",
                     "// task 3: parallel_for serialize loop_name=running sum"]
    assert offload.count("loop_name=") == 2


def test_debug_dump_path_written_through_cfg_takes_the_next_compiles(tmp_path, monkeypatch):
    monkeypatch.setenv("QD_DUMP_IR", "1")
    qd.init(arch=qd.cpu, debug_dump_path=str(tmp_path / "first"), offline_cache=False)
    qd.cfg.debug_dump_path = str(tmp_path / "second")
    compile_three_loops(2)
    assert not (tmp_path / "first").exists()
    assert "loop_name=fill_a" in dumped(tmp_path / "second", "after_offload")
    with pytest.raises(TypeError, match=r"qd.cfg.debug_dump_path = ... expects a str, but got 3 \(int\)"):
        qd.cfg.debug_dump_path = 3
    with pytest.raises(ValueError, match=r"qd.cfg.debug_dump_path = ... expects the directory .* an empty string"):
        qd.cfg.debug_dump_path = ""
    with pytest.raises(ValueError, match=r"qd.init\(debug_dump_path=...\) expects the directory .* an empty string"):
        qd.init(arch=qd.cpu, debug_dump_path="")


def test_dump_ir_is_read_at_every_compile_and_writes_nothing_when_off(tmp_path, monkeypatch):
    monkeypatch.delenv("QD_DUMP_IR", raising=False)
    qd.init(arch=qd.cpu, debug_dump_path=str(tmp_path), offline_cache=False)
    compile_three_loops(3)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv("QD_DUMP_IR", "1")  # turned on later in the same process: the next compile dumps
    compile_three_loops(4)
    assert "loop_name=fill_a" in dumped(tmp_path, "after_offload")


def test_print_ir_prints_the_passes_and_the_tasks_to_stdout(monkeypatch, capfd):
    monkeypatch.delenv("QD_DUMP_IR", raising=False)
    qd.init(arch=qd.cpu, print_ir=True, offline_cache=False)
    compile_three_loops(5)
    captured = capfd.readouterr()
    assert "// IR after infer_types\n(kernel three_loops" in captured.out
    assert offload_section(captured.out, "three_loops").startswith(
        "// IR after offload\n// kernel three_loops: 4 tasks\n// task 0: parallel_for loop_name=fill_a\n")
    assert "// IR after check_names" not in captured.out  # printed only after the passes that changed the kernel
    assert "// IR" not in captured.err


def test_a_struct_for_over_sparse_cells_keeps_its_name(monkeypatch, capfd):
    # On the CPU a struct-for under a pointer or a dynamic node loops over their cells (sparse_loops.py), a
    # parallel_for of its own making: it carries the name too.
    monkeypatch.delenv("QD_DUMP_IR", raising=False)
    qd.init(arch=qd.cpu, print_ir=True, offline_cache=False)
    x = qd.field(qd.i32)
    qd.root.pointer(qd.i, 4).dense(qd.i, 8).place(x)
    items = qd.field(qd.i32)
    qd.root.dense(qd.i, 64).dynamic(qd.j, 8).place(items)

    @qd.kernel
    def fill():
        for i in range(3, 5):
            x[i] = i
        for i in range(64):
            qd.append(items.parent(), i, i)

    @qd.kernel
    def named_sparse_loops():
        qd.loop_config(name="over pointer cells")
        for i in x:
            x[i] += 1
        qd.loop_config(name="over lists")
        for i, j in items:
            items[i, j] += 1

    fill()
    capfd.readouterr()
    named_sparse_loops()
    out = capfd.readouterr().out
    tasks = [line for line in offload_section(out, "named_sparse_loops").splitlines() if line.startswith("// task")]
    assert tasks == ["// task 0: parallel_for loop_name=over pointer cells",
                     "// task 1: parallel_for loop_name=over lists"]
    assert (x[4], x[0], x[8], items[7, 0]) == (5, 1, 0, 8)  # cell 0 (x[0:8]) is active, cell 1 is not
