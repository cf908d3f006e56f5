# tests/python/test_python_backend.py: qd.init(qd.python), upstream's python backend: containers and values are
# PyTensors, kernels and funcs run as plain Python (interop/python_backend.py).
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import quadrants as qd  # noqa: E402
from quadrants.base.python_scope import KernelScopeError  # noqa: E402
from quadrants.lang._py_tensor import PyTensor  # noqa: E402


@pytest.fixture
def python_arch():
    qd.init(qd.python)
    yield
    qd.reset()


def test_import_quadrants_does_not_import_torch():
    code = "import sys, quadrants; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))


def test_the_python_arch_is_its_own_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qd.init(arch=qd.python)
    assert qd.cfg.arch is qd.python and qd.python is not qd.cpu
    qd.reset()


def test_without_torch_the_python_arch_says_what_it_needs():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import quadrants as qd\n"
            "try:\n    qd.init(qd.python)\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert "qd.init(arch=qd.python) needs torch: the python backend keeps fields and ndarrays in torch tensors" in out


def test_containers_are_tensors_with_batch_shapes(python_arch):
    f = qd.field(qd.math.vec3, shape=(10, 4))
    assert isinstance(f, PyTensor) and f.dtype == torch.float32
    assert f.shape == torch.Size([10, 4]) and f.size() == torch.Size([10, 4, 3])
    f[2, 1] = torch.tensor([1.0, 2.0, 3.0])
    assert f._T_tc.size() == torch.Size([4, 10, 3]) and f._T_tc[1, 2].tolist() == [1.0, 2.0, 3.0]
    assert qd.field(qd.i32, shape=None).size() == torch.Size([])
    a = qd.ndarray(qd.math.mat4, shape=(3, 2))
    assert a.shape == torch.Size([3, 2]) and a.size() == torch.Size([3, 2, 4, 4])
    assert qd.Vector.field(2, qd.f64, shape=5).size() == torch.Size([5, 2])
    assert qd.Matrix.ndarray(2, 3, qd.i32, shape=4).size() == torch.Size([4, 2, 3])
    assert qd.ndarray(qd.u1, shape=2).dtype == torch.bool


def test_struct_field_holds_one_tensor_per_member(python_arch):
    s = qd.types.struct(pos=qd.math.vec3, mass=qd.f32).field(shape=(5,))
    assert s.field_dict["pos"].size() == torch.Size([5, 3]) and s.pos.shape == torch.Size([5])
    assert s.mass.size() == torch.Size([5]) and s.shape == torch.Size([5]) and s.keys == ["pos", "mass"]
    s.fill(2.0)
    assert s.to_numpy()["pos"].tolist()[4] == [2.0, 2.0, 2.0]
    with pytest.raises(AttributeError, match=r"no member or attribute 'vel' \(its members: pos, mass\)"):
        s.vel


def test_zero_d_ndarray_indexed_with_zero(python_arch):
    t = qd.ndarray(qd.i32, ())
    t[()] = 3
    assert t[0] == 3


def test_field_read_is_a_tensor_view_and_vector_index_unpacks(python_arch):
    f = qd.field(qd.math.vec3, shape=(3, 2))
    f[1, 0] = torch.tensor([10.0, 20.0, 30.0])
    assert f[1, 0, 1].item() == 20.0  # an element read is a 0-d tensor
    index = qd.Vector([1, 0])
    assert isinstance(index, PyTensor) and f[index].tolist() == [10.0, 20.0, 30.0]


def test_kernel_runs_as_python_with_atomics_on_views(python_arch):
    @qd.kernel
    def update(a: qd.types.ndarray(qd.i32, 1)) -> qd.i32:
        old = 0
        for i in range(a.shape[0]):
            old += qd.atomic_add(a[i], 5)
            qd.atomic_max(a[i], 7)
            qd.atomic_min(a[i], 8)
        qd.atomic_cas(a[0], 7, 100)  # a[0] is 7: swapped
        qd.atomic_cas(a[2], 7, 100)  # a[2] is 8: kept
        qd.atomic_exchange(a[1], -1)
        return old

    a = qd.ndarray(qd.i32, (3,))
    a[2] = 9
    assert update(a) == 9  # the old values: 0 + 0 + 9
    assert a.tolist() == [100, -1, 8]


def test_atomic_on_a_number_names_the_problem(python_arch):
    with pytest.raises(TypeError, match=r"qd.atomic_add\(x, ...\) under qd.init\(arch=qd.python\) updates x in "
                                        r"place.*but got int 3"):
        qd.atomic_add(3, 1)


def test_dtype_calls_and_cast_convert_like_python(python_arch):
    @qd.kernel
    def convert(a: qd.types.ndarray(qd.f32, 1), b: qd.types.ndarray(qd.i32, 1)):
        a[0] = qd.f32(3)
        b[0] = qd.i32(3.7)
        b[1] = qd.i32(-0.9)
        b[2] = qd.cast(a[0] + 0.5, qd.i32)

    a, b = qd.ndarray(qd.f32, (1,)), qd.ndarray(qd.i32, (3,))
    convert(a, b)
    assert a[0] == 3.0 and b.tolist() == [3, 0, 3]
    assert type(qd.f32(3)) is float and type(qd.i64(2.5)) is int
    assert qd.cast(torch.tensor(1.5), qd.i32).dtype == torch.int32


def test_grouped_and_ndrange_iterate_batch_indices(python_arch):
    f = qd.field(qd.math.vec2, shape=(2, 3))

    @qd.kernel
    def fill(f: qd.template()):
        for I in qd.grouped(f):
            f[I] = qd.Vector([I[0], I[1]])
        for i, j in qd.ndrange(f.shape[0], f.shape[1]):
            f[i, j] += 10

    fill(f)
    assert f[1, 2].tolist() == [11.0, 12.0]
    assert [I.tolist() for I in qd.grouped(qd.field(qd.f32, shape=2))] == [[0], [1]]


def test_func_runs_as_python_in_and_out_of_kernels(python_arch):
    @qd.func
    def bump(a: qd.types.ndarray(qd.i32, 1), by):
        for i in range(a.shape[0]):
            a[i] += by

    @qd.kernel
    def twice(a: qd.types.ndarray(qd.i32, 1)):
        bump(a, 1)
        bump(a, 1)

    a = qd.ndarray(qd.i32, (2,))
    bump(a, 3)
    twice(a)
    assert a.tolist() == [5, 5]


def test_outside_the_python_arch_funcs_and_dtype_calls_still_refuse():
    @qd.func
    def helper():
        return 1

    qd.init(qd.cpu)
    with pytest.raises(KernelScopeError, match="can only be called from a @qd.kernel"):
        helper()
    with pytest.raises(RuntimeError, match=r"qd.f32\(x\) casts a value inside a @qd.kernel"):
        qd.f32(3)
    with pytest.raises(RuntimeError, match="can only be called inside a @qd.kernel"):
        qd.atomic_add(np.zeros(1), 1)


@qd.kernel
def _add_one(a: qd.types.ndarray(qd.i32, 1)):
    for i in range(a.shape[0]):
        a[i] += 1


def test_kernels_switch_between_python_and_compiled_with_init():
    qd.init(qd.python)
    a = qd.ndarray(qd.i32, (2,))
    _add_one(a)  # decorated before qd.init(qd.python): still runs as Python on the tensor
    assert isinstance(a, PyTensor) and a.tolist() == [1, 1]
    qd.init(qd.cpu)
    b = qd.ndarray(qd.i32, (2,))
    _add_one(b)
    assert isinstance(b, qd.Ndarray) and b.to_numpy().tolist() == [1, 1]
    qd.init(qd.python)
    qd.reset()  # a kernel call after reset compiles again (default arch)
    c = qd.ndarray(qd.i32, (2,))
    _add_one(c)
    assert isinstance(c, qd.Ndarray) and c.to_numpy().tolist() == [1, 1]


def test_snode_only_options_warn_and_unknown_ones_raise(python_arch):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qd.field(qd.f32, shape=3, needs_grad=True)
    assert any("needs_grad=...) has no effect under qd.init(arch=qd.python)" in str(w.message) for w in caught)
    with pytest.raises(TypeError, match=r"qd.field\(\) got unexpected keyword argument\(s\) colour"):
        qd.field(qd.f32, shape=3, colour="red")


def test_tensors_pickle_as_pytensors(python_arch):
    a = qd.ndarray(qd.f32, (2,))
    a[1] = 4.0
    back = pickle.loads(pickle.dumps(a))
    assert type(back) is PyTensor and back.tolist() == [0.0, 4.0]
