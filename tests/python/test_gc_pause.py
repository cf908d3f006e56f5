# Kernel translation holds off Python's cyclic garbage collector (base/gc_pause.py) and leaves it as it found it.
import gc

import numpy as np
import pytest

import quadrants as qd
import quadrants.kernels.definition as definition
from quadrants.base.gc_pause import collector_paused


def test_a_pause_restores_the_collector_even_when_the_block_raises():
    assert gc.isenabled()
    with pytest.raises(ValueError):
        with collector_paused():
            assert not gc.isenabled()
            raise ValueError("inside")
    assert gc.isenabled()


def test_a_program_that_disabled_the_collector_keeps_it_disabled():
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_no_collection_runs_while_a_kernel_is_translated(monkeypatch, tmp_path):
    monkeypatch.setenv("QD_CACHE_DIR", str(tmp_path))  # an empty cache: the kernel is translated
    qd.init(arch=qd.cpu)
    collections_during = []
    translating = [False]
    translated = []

    def observe(phase, info):
        if phase == "start" and translating[0]:
            collections_during.append(info["generation"])

    original = definition.translate_kernel

    def translate_with_garbage(*args, **kwargs):
        translating[0] = True
        translated.append(True)
        try:
            for _ in range(3 * gc.get_threshold()[0]):  # enough cyclic allocations to trigger collections
                cycle = []
                cycle.append(cycle)
            return original(*args, **kwargs)
        finally:
            translating[0] = False

    monkeypatch.setattr(definition, "translate_kernel", translate_with_garbage)
    gc.callbacks.append(observe)
    try:
        @qd.kernel
        def fill(a: qd.types.ndarray(dtype=qd.f32, ndim=1), v: qd.f32):
            for i in a:
                a[i] = v + 0.25

        out = np.zeros(8, dtype=np.float32)
        fill(out, 1.0)
    finally:
        gc.callbacks.remove(observe)
    assert translated and collections_during == []
    assert out.tolist() == [1.25] * 8
    assert gc.isenabled()
