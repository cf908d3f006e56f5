# tests/python/test_template_mapper.py: kernel.mapper, upstream's view of the specializations a kernel compiled.
import dataclasses

import pytest

import quadrants as qd
from quadrants._tensor import _with_layout
from quadrants.types.enums import AutodiffMode


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)


def test_a_kernel_without_templates_counts_one_entry_per_array_layout():
    @qd.kernel
    def fill(x: qd.types.ndarray()):
        for i, j in qd.ndrange(2, 3):
            x[i, j] = i * 10 + j

    rows = qd.ndarray(qd.i32, shape=(2, 3))
    swapped = _with_layout(qd.ndarray(qd.i32, shape=(3, 2)), (1, 0))
    fill(rows)
    fill(qd.ndarray(qd.i32, shape=(2, 3)))  # same features: no new entry
    assert list(fill._primal.mapper.mapping.values()) == [0]
    fill(swapped)
    keys = list(fill._primal.mapper.mapping)
    assert keys == [((qd.i32, 2, False, "unsafe", None),), ((qd.i32, 2, False, "unsafe", (1, 0)),)]
    assert swapped.to_numpy().tolist() == [[0, 1, 2], [10, 11, 12]]


def test_a_tensor_slot_keys_fields_by_identity_and_arrays_by_features():
    @qd.kernel
    def fill(x: qd.Tensor):
        for i in range(4):
            x[i] = i + 1

    field = qd.tensor(qd.i32, shape=(4,), backend=qd.Backend.FIELD)
    fill(field)
    fill(qd.tensor(qd.i32, shape=(4,), backend=qd.Backend.NDARRAY))
    fill(qd.tensor(qd.i32, shape=(4,), backend=qd.Backend.NDARRAY))
    mapper = fill._primal.mapper
    assert len(mapper.mapping) == 2
    (field_key,), (array_key,) = mapper.mapping
    assert field_key[0] != array_key[0]  # the markers of the two kinds of value
    assert field_key[1]() is field._unwrap() and array_key[1:3] == (qd.i32, 1)  # the field, weakly
    # Another dtype is a new spec of the same template key: recorded from what the launcher was given.
    fill(qd.tensor(qd.f32, shape=(4,), backend=qd.Backend.NDARRAY))
    assert len(mapper.mapping) == 3
    assert list(mapper.mapping)[2][0][1:3] == (qd.f32, 1)


def test_dataclass_members_the_kernel_never_reads_select_nothing():
    @dataclasses.dataclass
    class State:
        used: qd.types.ndarray()
        unused: qd.types.NDArray[qd.f32, 1]

    @qd.kernel
    def bump(flag: qd.Template, s: State):
        s.used[0] += 1.0

    state = State(qd.ndarray(qd.f32, (2,)), qd.ndarray(qd.f32, (2,)))
    bump(False, state)
    bump(False, State(qd.ndarray(qd.f32, (2,)), qd.ndarray(qd.f32, (2,))))  # nothing compiles
    mapper = bump._primal.mapper
    assert len(mapper.mapping) == 1
    bump(False, State(qd.ndarray(qd.f64, (2,)), qd.ndarray(qd.f32, (2,))))  # a new spec: `used` is f64
    keys = list(mapper.mapping)
    assert len(keys) == 2
    assert keys[1][0] is False and keys[1][1] == ((qd.f64, 1, False, "unsafe", None), "#")
    bump(True, state)
    assert len(mapper.mapping) == 3


def test_a_record_keeps_no_template_object_alive():
    import gc
    import weakref

    class Settings:
        scale = 3

    @qd.kernel
    def fill(x: qd.types.ndarray(), settings: qd.template()):
        x[0] = settings.scale

    x = qd.ndarray(qd.i32, (1,))
    settings = Settings()
    fill(x, settings)
    assert x.to_numpy().tolist() == [3]
    (key,) = fill._primal.mapper.mapping
    assert key[1]() is settings  # named weakly
    gone = weakref.ref(settings)
    del settings
    gc.collect()
    assert gone() is None and key[1]() is None


def test_reset_forgets_argument_identities_but_not_entries():
    @qd.kernel
    def fill(x: qd.types.ndarray(), v: qd.i32):
        x[0] = v

    a = qd.ndarray(qd.i32, (1,))
    fill(a, 3)
    mapper = fill._primal.mapper
    assert len(mapper._mapping_cache) == 1 and len(mapper.mapping) == 1
    qd.reset()
    assert len(mapper._mapping_cache) == 0
    qd.init(arch=qd.cpu)
    b = qd.ndarray(qd.i32, (1,))
    fill(b, 4)  # compiles again (a new program) under the same key
    assert len(mapper.mapping) == 1 and len(mapper._mapping_cache) == 1
    assert b.to_numpy().tolist() == [4]


def test_a_patched_extract_arg_sees_each_dataclass_member():
    # Upstream's module path; nested members go through the module's global, as upstream's do.
    calls = []
    original = qd.lang._template_mapper_hotpath._extract_arg

    def counting(*args):
        calls.append(args[3])
        return original(*args)

    @dataclasses.dataclass(frozen=True)
    class Pair:
        a: qd.types.ndarray()
        b: qd.i32

    @qd.kernel
    def k(p: Pair):
        p.a[0] = p.b

    qd.lang._template_mapper_hotpath._extract_arg = counting
    try:
        k(Pair(qd.ndarray(qd.i32, (1,)), 5))
    finally:
        qd.lang._template_mapper_hotpath._extract_arg = original
    assert calls == ["p.a", "p.b"]
    assert k._primal.mapper.extract(False, (Pair(qd.ndarray(qd.i32, (3,)), 1),)) == \
        (((qd.i32, 1, False, "unsafe", None), "#"),)


def test_materialized_kernels_lists_the_specializations_compiled_since_reset():
    @qd.kernel
    def fill(x: qd.types.ndarray()):
        x[0] = 1

    cache = fill._primal.materialized_kernels
    a = qd.ndarray(qd.i32, (1,))
    fill(a)
    fill(qd.Tensor(a))  # a wrapper of the same array: no new specialization
    assert list(cache) == [(fill.fn, 0, AutodiffMode.NONE)]
    fill(qd.ndarray(qd.f32, (1,)))
    assert len(cache) == 2
    qd.init(arch=qd.cpu)  # compiled kernels go with the program
    assert len(cache) == 0
    fill(qd.ndarray(qd.f32, (1,)))
    assert [index for _, index, _ in cache] == [1]


def test_a_buffer_view_parameter_recompiled_for_another_dtype_is_recorded():
    # The second launch compiles a new spec of the same template key: recorded from the launcher's view members.
    @qd.kernel
    def first(v: qd.BufferView, out: qd.types.ndarray()):
        out[0] = v[0]

    out = qd.ndarray(qd.f32, (1,))
    floats, ints = qd.ndarray(qd.f32, (4,)), qd.ndarray(qd.i32, (4,))
    floats.fill(2)
    ints.fill(3)
    first(floats[1:3], out)
    first(ints[0:2], out)
    assert out.to_numpy().tolist() == [3.0]
    keys = list(first._primal.mapper.mapping)
    assert [key[0] for key in keys] == [(qd.f32, 1, False, "unsafe"), (qd.i32, 1, False, "unsafe")]
