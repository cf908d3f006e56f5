# tests/python/compat_probes/absent.py: probes of the rows that say "not yet" or "no": what they name is absent, or
# raises, as the row says. When a helper builds one of them, the row becomes "yes" and its probe must be rewritten
# to run the construct (test_compatibility_table.py fails until then).
import warnings

import pytest

import quadrants as qd
from compat_probes.registry import probe


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
