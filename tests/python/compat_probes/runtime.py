# tests/python/compat_probes/runtime.py: probes of the compatibility rows about qd.init, kernel options and graphs.
import warnings

import numpy as np

import quadrants as qd
from compat_probes.registry import probe
from quadrants.lang import impl
from quadrants.runtime import options as init_options


def _i32(value, shape=()):
    array = qd.ndarray(qd.i32, shape=shape)
    array.from_numpy(np.full(shape, value, dtype=np.int32))
    return array


@probe("`qd.init` options", status="all accepted")
def init_options_are_accepted():
    # Every option upstream's qd.init() takes is accepted at a value other than its default; the ones that mean
    # nothing here warn, naming the option.
    for name, (default, status, _) in init_options.OPTIONS.items():
        if status == init_options.APPLIED:
            continue
        other = {bool: lambda: not default, int: lambda: default + 1, float: lambda: default + 0.5,
                 str: lambda: default + "x"}[type(default)]()
        saved = set(init_options._warned)
        init_options._warned.clear()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                qd.init(arch=qd.cpu, **{name: other})
        finally:
            init_options._warned.clear()
            init_options._warned.update(saved)
        messages = [str(w.message) for w in caught]
        assert any(m.startswith(f"qd.init({name}=") and " is ignored: " in m for m in messages), (name, messages)
    qd.init(arch=qd.cpu, random_seed=3, fast_math=True, cpu_max_num_threads=1, offline_cache_cleaning_factor=0.5)
    assert (qd.cfg.random_seed, qd.cfg.fast_math, qd.cfg.cpu_max_num_threads) == (3, True, 1)
    assert qd.cfg.offline_cache_cleaning_factor == 0.5


@probe("`@qd.kernel(fastcache=True)`", status="accepted")
def fastcache_is_accepted():
    @qd.kernel(fastcache=True)
    def twice(x: qd.i32) -> qd.i32:
        return 2 * x

    assert twice(21) == 42


@probe("`@qd.kernel(graph=True)` with `qd.graph.parallel_context()` regions of `qd.graph.parallel()` sections "
       "(also under `if qd.static(...)` / `for ... in qd.static(...)`); the deprecated `qd.graph_parallel_context` / "
       "`qd.graph_parallel`")
def graph_sections():
    @qd.kernel(graph=True)
    def sections(x: qd.types.ndarray(qd.f32, ndim=1), y: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                for i in range(x.shape[0]):
                    x[i] = x[i] + 1.0
            for k in qd.static(range(2)):
                with qd.graph.parallel():
                    for i in range(y.shape[0]):
                        y[i] = y[i] * 2.0 + k
        for i in range(x.shape[0]):
            x[i] = x[i] + y[i]

    @qd.kernel(graph=True)
    def flat(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph_parallel_context():
            with qd.graph_parallel():
                for i in range(x.shape[0]):
                    x[i] = 7.0

    x, y = np.zeros(8, np.float32), np.ones(8, np.float32)
    sections(x, y)
    assert (y == 5.0).all() and (x == 6.0).all()  # y: (1 * 2 + 0) * 2 + 1
    prog = impl.get_runtime().prog
    assert prog.get_num_offloaded_tasks_on_last_call() == 4  # the note: three section loops and the join
    # On CUDA the four tasks are the nodes of the kernel's graph, chained (no fork and join node); none on the CPU.
    on_cuda = impl.current_cfg().arch == qd.cuda
    assert prog.get_graph_num_nodes_on_last_call() == (4 if on_cuda else 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        flat(x)
    assert (x == 7.0).all() and any(issubclass(w.category, DeprecationWarning) for w in caught)


@probe("`@qd.kernel(graph=True, checkpoints=True)` with `qd.checkpoint(cp_id, yield_on=flag)`, `qd.GraphStatus`, "
       "`kernel.resume(..., from_checkpoint=label)`")
def checkpoints():
    @qd.kernel(graph=True, checkpoints=True)
    def staged(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1
        with qd.checkpoint(3, yield_on=flag):
            for i in range(x.shape[0]):
                x[i] = x[i] + 10
        for i in range(x.shape[0]):
            x[i] = x[i] + 100

    x, flag = _i32(0, (4,)), _i32(1)
    status = staged(x, flag)
    assert isinstance(status, qd.GraphStatus) and status.yielded and status.checkpoint == 3
    assert (x.to_numpy() == 11).all()
    flag.from_numpy(np.array(0, np.int32))
    status = staged.resume(x, flag, from_checkpoint=3)
    assert not status.yielded and (x.to_numpy() == 121).all()
    prog = impl.get_runtime().prog  # the note: upstream's checkpoint counters are not there
    assert not hasattr(prog, "get_graph_num_checkpoints_on_last_call")
    assert not hasattr(prog, "get_graph_last_yield_cp_id_on_last_call")
    assert hasattr(staged, "src_ll_cache_observations")  # its translation is cached as any kernel's


@probe("`@qd.kernel(graph=True)` on CUDA: a CUDA graph of the kernel's tasks, replayed; "
       "`impl.get_runtime().prog.get_graph_num_nodes_on_last_call()`, `get_graph_cache_size()`, "
       "`get_graph_cache_used_on_last_call()`, `get_graph_total_builds()`")
def cuda_graphs():
    @qd.kernel(graph=True)
    def step(x: qd.types.ndarray(qd.f32, ndim=1), y: qd.types.ndarray(qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] += 1.0
        for i in range(y.shape[0]):
            y[i] += 2.0

    prog = impl.get_runtime().prog
    builds = prog.get_graph_total_builds()
    for n in (4, 40):  # other arrays and shapes: the same graph, replayed
        x, y = np.zeros(n, np.float32), np.zeros(n, np.float32)
        step(x, y)
        assert (x == 1.0).all() and (y == 2.0).all()
    counters = (prog.get_graph_num_nodes_on_last_call(), prog.get_graph_cache_used_on_last_call())
    if impl.current_cfg().arch == qd.cuda:
        assert counters == (2, True) and prog.get_graph_total_builds() == builds + 1
    else:  # graph=True changes nothing on the CPU, as upstream
        assert counters == (0, False) and prog.get_graph_cache_size() == 0


@probe("`while qd.graph.do_while(flag):` in `@qd.kernel(graph=True)`")
def do_while():
    @qd.kernel(graph=True)
    def counted(x: qd.types.ndarray(qd.i32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
        while qd.graph.do_while(c):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1
            c[()] = c[()] - 1

    x, c = _i32(0, (8,)), _i32(5)
    counted(x, c)
    assert (x.to_numpy() == 5).all() and int(c.to_numpy()) == 0


@probe("`qd.init(arch=qd.gpu)`, `qd.init(arch=qd.cuda)`")
def gpu_arch():
    for arch in (qd.gpu, qd.cuda):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            qd.init(arch=arch)
        if qd.cfg.arch is not qd.cuda:  # no device: the CPU, with a warning
            assert qd.cfg.arch is qd.cpu and caught, [str(w.message) for w in caught]

    @qd.kernel
    def one() -> qd.i32:
        return 1

    assert one() == 1
