# tests/python/compat_probes/absent.py: probes of the rows that say "not yet" or "no": what they name is absent, or
# raises, as the row says. When a helper builds one of them, the row becomes "yes" and its probe must be rewritten
# to run the construct (test_compatibility_table.py fails until then).
import importlib
import warnings

import numpy as np
import pytest

import quadrants as qd
from compat_probes.registry import probe
from quadrants.lang import impl


def _absent_module(name):
    with pytest.raises(ImportError):
        importlib.import_module(name)


@probe("CUDA graph capture, streams API (`qd.create_stream`, `qd.create_event`), `qd.BufferView`, kernel coverage "
       "(`QD_KERNEL_COVERAGE`)", status="not yet")
def graphs_streams_buffer_views_coverage():
    for name in ("create_stream", "create_event", "stream_parallel", "Stream", "Event", "BufferView"):
        assert not hasattr(qd, name), name
    assert not hasattr(qd.types, "BufferViewType")
    for module in ("quadrants.lang.stream", "quadrants.lang.buffer_view", "quadrants.lang._kernel_coverage"):
        _absent_module(module)

    @qd.kernel(graph=True)
    def step(x: qd.types.ndarray(qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] += 1.0

    x = np.zeros(4, np.float32)
    for _ in range(2):
        step(x)
    prog = impl.get_runtime().prog  # no graph was captured or replayed
    assert (prog.get_graph_cache_size(), prog.get_graph_cache_used_on_last_call()) == (0, False)
    assert prog.get_graph_num_nodes_on_last_call() == 0 and (x == 2.0).all()


@probe("`qd.types.quant` (quantized types), meshes", status="not yet")
def quantized_types_and_meshes():
    assert not hasattr(qd.types, "quant")
    for name in ("Mesh", "MeshInstance", "mesh_local", "mesh_patch_idx"):
        assert not hasattr(qd, name), name
    _absent_module("quadrants.types.quant")
    _absent_module("quadrants.lang.mesh")


@probe("`qd.gpu` as upstream's list of GPU archs (`qd.cuda in qd.gpu`, `for arch in qd.gpu`)", status="no")
def gpu_is_one_arch():
    assert not isinstance(qd.gpu, (list, tuple))
    with pytest.raises(TypeError):
        qd.cuda in qd.gpu  # noqa: B015  the membership test itself raises
    with pytest.raises(TypeError):
        iter(qd.gpu)


@probe("Metal, Vulkan, AMDGPU backends", status="no")
def other_backends():
    for arch in (qd.metal, qd.vulkan, qd.amdgpu):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            qd.init(arch=arch)
        assert qd.cfg.arch is qd.cpu, arch
        assert any("falling back to qd.cpu" in str(w.message) for w in caught), arch
    with pytest.raises(RuntimeError, match="not available here"):
        qd.init(arch=qd.vulkan, enable_fallback=False)
