# tests/python/test_flat_dataclass_names.py: upstream's flattened names of dataclass parameters
# (frontend/flat_dataclass_names.py) and its paths for them: lang._dataclass_util, lang._kernel_impl_dataclass,
# lang._func_base's member plan, _test_tools.dataclass_test_tools.
import ast
import dataclasses

import pytest

import quadrants as qd
from quadrants._test_tools.dataclass_test_tools import build_obj_tuple_from_type_dict, build_struct
from quadrants.lang import _kernel_impl_dataclass as kid
from quadrants.lang._dataclass_util import create_flat_name
from quadrants.lang._func_base import _frozen_dc_plans, _get_frozen_dc_plan
from quadrants.lang.kernel_arguments import ArgMetadata


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


@dataclasses.dataclass
class Inner:
    a: qd.types.NDArray[qd.i32, 1]
    f: qd.template()


@dataclasses.dataclass
class Outer:
    x: qd.types.NDArray[qd.f32, 2]
    n: qd.i32
    t: qd.Tensor
    inner: Inner


def test_create_flat_name():
    assert create_flat_name("s", "a") == "__qd_s__qd_a"
    assert create_flat_name("__qd_s__qd_a", "b") == "__qd_s__qd_a__qd_b"


def test_expand_func_arguments_flattens_nested_dataclasses():
    args = [ArgMetadata(qd.i32, "k"), ArgMetadata(Outer, "s")]
    out = kid.expand_func_arguments(None, args)
    assert [m.name for m in out] == ["k", "__qd_s__qd_x", "__qd_s__qd_n", "__qd_s__qd_t", "__qd_s__qd_inner__qd_a",
                                     "__qd_s__qd_inner__qd_f"]
    assert out[1].annotation.dtype == qd.f32 and out[1].annotation.ndim == 2
    assert out[2].annotation == qd.i32
    used = {"__qd_s__qd_n", "__qd_s__qd_inner", "__qd_s__qd_inner__qd_a"}  # what a kernel read
    out = kid.expand_func_arguments(used, args + [ArgMetadata(qd.i32, "__qd_s__qd_unused")])
    assert [m.name for m in out] == ["k", "__qd_s__qd_n", "__qd_s__qd_inner__qd_a"]


def test_expand_func_arguments_rejects_members_kernels_cannot_take():
    @dataclasses.dataclass
    class Bad:
        text: str

    with pytest.raises(TypeError, match="member 'text' of dataclass"):
        kid.expand_func_arguments(None, [ArgMetadata(Bad, "b")])


def test_unpack_ast_struct_expressions():
    tree = ast.parse("s.inner.a[i] = s.x.shape[0] + other.y + s.n")
    names = {"__qd_s__qd_inner", "__qd_s__qd_inner__qd_a", "__qd_s__qd_x", "__qd_s__qd_n"}
    out = kid.unpack_ast_struct_expressions(tree, names)
    assert ast.unparse(out) == "__qd_s__qd_inner__qd_a[i] = __qd_s__qd_x.shape[0] + other.y + __qd_s__qd_n"
    assert all(hasattr(n, "lineno") for n in ast.walk(out) if isinstance(n, ast.expr))


def test_populate_global_vars_from_dataclass():
    field = qd.field(qd.i32, (4,))
    value = Outer(x=qd.ndarray(qd.f32, (2, 2)), n=3, t=qd.Tensor(qd.field(qd.f32, (3,))),
                  inner=Inner(a=qd.ndarray(qd.i32, (4,)), f=field))
    found = {}
    kid.populate_global_vars_from_dataclass("s", Outer, value, found)
    assert set(found) == {"__qd_s__qd_t", "__qd_s__qd_inner__qd_f"}
    assert found["__qd_s__qd_inner__qd_f"] is field
    assert found["__qd_s__qd_t"] is value.t._impl  # the field inside the qd.Tensor wrapper
    every = {}
    kid.populate_global_vars_from_dataclass("s", Outer, value, every, populate_all_fields=True)
    assert every["__qd_s__qd_n"] == 3 and every["__qd_s__qd_x"] is value.x


def test_member_plan_is_cached_per_set_and_cleared_by_reset():
    @dataclasses.dataclass(frozen=True)
    class S:
        x: qd.types.NDArray[qd.i32, 1]
        y: qd.types.NDArray[qd.i32, 1]

    fields = {f.name: f for f in dataclasses.fields(S)}
    used = {"__qd_s__qd_y", "__qd_s__qd_z"}
    plan = _get_frozen_dc_plan(used, S, "s", fields)
    assert [(name, flat) for name, flat, _ in plan] == [("y", "__qd_s__qd_y")]
    assert _get_frozen_dc_plan(used, S, "s", fields) is plan
    assert _get_frozen_dc_plan(set(used), S, "s", fields) == plan  # an equal set: computed again, same plan
    assert len(_frozen_dc_plans) == 2
    qd.reset()
    assert len(_frozen_dc_plans) == 0


def test_build_struct():
    s = build_struct(Inner)
    assert isinstance(s.a, qd.ScalarNdarray) and s.a.shape == (10,) and s.a.dtype == qd.i32
    assert isinstance(s.f, qd.Field) and s.f.shape == (10,)
    nd, = build_obj_tuple_from_type_dict({"v": qd.types.NDArray[qd.f32, 2]})
    assert nd.shape == (10, 10)
    with pytest.raises(TypeError, match="build_struct\\(\\) builds members annotated"):
        build_struct(Outer)  # its qd.i32 member has no object to build


def test_launch_records_report_flat_names():
    @dataclasses.dataclass
    class S:
        a: qd.types.NDArray[qd.i32, 1]
        inner: Inner

    @qd.kernel
    def k(s: S):
        for i in range(4):
            s.inner.a[i] = s.a[i]

    s = S(a=qd.ndarray(qd.i32, (4,)), inner=Inner(a=qd.ndarray(qd.i32, (4,)), f=qd.field(qd.i32, (4,))))
    k(s)
    names = next(iter(k._primal.used_py_dataclass_parameters_by_key_enforcing.values()))
    assert names == {"__qd_s", "__qd_s__qd_a", "__qd_s__qd_inner", "__qd_s__qd_inner__qd_a"}
