# tests/python/test_dispatch_cache_views.py: upstream's per-call cache surfaces (TemplateMapper.lookup, the kernel
# mapper's _mapping_cache / _mapping_cache_tracker, launch_context_buffer_cache) over our dispatch entries.
import dataclasses
import gc

import pytest

import quadrants as qd
from quadrants.lang._template_mapper import TemplateMapper
from quadrants.lang.kernel_arguments import ArgMetadata


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)


def test_a_direct_mapper_numbers_keys_and_memoizes_by_argument_identity():
    t = qd.template()
    mapper = TemplateMapper((ArgMetadata(t, "a"), ArgMetadata(qd.i32, "n")), template_slot_locations=(0,))
    assert mapper.template_slot_locations == (0,)
    assert mapper.lookup(False, (1, 5))[0] == 0
    assert mapper.lookup(False, (2, 5))[0] == 1
    assert mapper.lookup(False, (1, 6))[0] == 0  # a runtime number is no feature
    assert len(mapper.mapping) == 2 and len(mapper._mapping_cache) == 3
    with pytest.raises(TypeError, match="2 argument"):
        mapper.lookup(False, (1,))


def test_a_direct_mapper_tells_apart_a_data_oriented_object_whose_ndarray_was_rebound():
    @qd.data_oriented
    class State:
        def __init__(self, x):
            self.x = x

    mapper = TemplateMapper((ArgMetadata(qd.template(), "s"),), (0,))
    state = State(qd.ndarray(qd.i32, (2,)))
    first = mapper.lookup(False, (state,))
    assert mapper.lookup(False, (state,)) is first and len(mapper._mapping_cache) == 1
    state.x = qd.ndarray(qd.f32, (2,))  # the same object, another member: not the memoized call
    assert mapper.lookup(False, (state,)) is not first and len(mapper._mapping_cache) == 2


def test_a_direct_mapper_forgets_a_call_when_an_argument_dies():
    class Box:
        pass

    mapper = TemplateMapper((ArgMetadata(qd.template(), "box"),), (0,))
    box = Box()
    mapper.lookup(False, (box,))
    assert len(mapper._mapping_cache_tracker) == 1
    del box
    gc.collect()
    assert len(mapper._mapping_cache) == 0 and len(mapper._mapping_cache_tracker) == 0


def test_a_direct_mapper_does_not_memoize_what_it_cannot_track():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Slotted:
        n: int

    mapper = TemplateMapper((ArgMetadata(qd.template(), "s"),), (0,))
    with pytest.warns(UserWarning, match="Template mapper caching disabled"):
        assert mapper.lookup(False, (Slotted(1),))[0] == 0
    assert len(mapper._mapping_cache) == 0


def test_a_template_kernel_has_one_memo_entry_per_template_key():
    @qd.kernel
    def bump(flag: qd.template(), x: qd.template(), n: int):
        if qd.static(flag):
            x[None] += n

    x = qd.field(qd.i32, shape=())
    mapper, launches = bump._primal.mapper, bump._primal.launch_context_buffer_cache
    assert len(mapper._mapping_cache) == 0 and len(launches._launch_ctx_cache) == 0
    for n in (1, 2, 300, 4000):  # runtime numbers select no entry (upstream memoizes one per int object)
        bump(True, x, n)
    assert x[None] == 4303
    assert len(mapper._mapping_cache) == 1 and len(mapper._mapping_cache_tracker) == 1
    bump(False, x, 1)
    assert len(mapper._mapping_cache) == 2 and len(launches._launch_ctx_cache_tracker) == 2
    (index, features), _ = mapper._mapping_cache.values()
    assert index == 0 and features[0] is True
    assert all(callable(launcher) for launcher in launches._launch_ctx_cache.values())


def test_a_template_kernel_entry_goes_with_the_object_its_key_names():
    @qd.data_oriented
    class State:
        def __init__(self):
            self.out = qd.ndarray(qd.i32, shape=())

    @qd.kernel
    def fill(s: qd.template()):
        s.out[None] = 1

    state = State()
    fill(state)
    (tracker,) = fill._primal.mapper._mapping_cache_tracker.values()
    assert tracker[0] is None and len(tracker) == 2  # None, then the state's finalizer
    del state, tracker
    gc.collect()
    assert len(fill._primal.mapper._mapping_cache) == 0
    assert len(fill._primal.launch_context_buffer_cache._launch_ctx_cache) == 0


def test_a_kernel_dispatched_in_cpp_counts_its_compiled_specializations_until_reset():
    @qd.kernel
    def inc(x: qd.types.ndarray()):
        x[None] += 1

    a = qd.ndarray(qd.i32, shape=())
    inc(a)
    inc(qd.ndarray(qd.i32, shape=()))  # the same specialization
    assert len(inc._primal.mapper._mapping_cache) == 1
    assert len(inc._primal.launch_context_buffer_cache._launch_ctx_cache) == 1
    inc(qd.ndarray(qd.f32, shape=()))
    assert len(inc._primal.mapper._mapping_cache) == 2
    qd.reset()
    assert len(inc._primal.mapper._mapping_cache) == 0


def test_an_entry_records_the_member_plan_of_its_frozen_dataclass_arguments():
    from quadrants.lang._func_base import _frozen_dc_plans

    @dataclasses.dataclass(frozen=True)
    class Inner:
        b: qd.types.NDArray[qd.i32, 1]
        unused: qd.types.NDArray[qd.i32, 1]

    @dataclasses.dataclass(frozen=True)
    class State:
        a: qd.types.NDArray[qd.i32, 1]
        inner: Inner
        unused: qd.types.NDArray[qd.i32, 1]

    @qd.kernel
    def fill(state: State):
        for i in range(2):
            state.a[i] = 7
            state.inner.b[i] = 8

    assert len(_frozen_dc_plans) == 0  # qd.init() emptied it
    arrays = [qd.ndarray(qd.i32, shape=(2,)) for _ in range(4)]
    fill(State(arrays[0], Inner(arrays[1], arrays[2]), arrays[3]))
    plans = {basename: plan for (_, _, basename), (_, plan) in _frozen_dc_plans.items()}
    assert [member for member, _, _ in plans["state"]] == ["a", "inner"]
    assert [(member, flat) for member, flat, _ in plans["__qd_state__qd_inner"]] == [("b", "__qd_state__qd_inner__qd_b")]
    qd.reset()
    assert len(_frozen_dc_plans) == 0


def test_fe_ll_observations_report_compiled_code_found_in_a_cache(tmp_path):
    @qd.kernel
    def bump(a: qd.types.NDArray[qd.i32, 1]):
        a[0] += 1

    hits = []
    for _ in range(3):
        qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path), offline_cache=True)
        assert not bump._primal.fe_ll_cache_observations.cache_hit  # a new qd.init() starts a new record
        bump(qd.ndarray(qd.i32, (1,)))
        hits.append(bump._primal.fe_ll_cache_observations.cache_hit)
    assert hits == [False, True, True]
