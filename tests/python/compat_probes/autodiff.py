# tests/python/compat_probes/autodiff.py: probes of the compatibility rows about reverse- and forward-mode autodiff.
import warnings

import numpy as np
import pytest

import quadrants as qd
from compat_probes.registry import probe
from compat_probes.util import same


@probe("reverse-mode autodiff: `qd.ad.Tape` (with `grad_check=`), `kernel.grad()`, `needs_grad`, custom gradients")
def reverse_mode():
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    x = qd.field(qd.f64, shape=3, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def energy(k: qd.f64):
        for i in x:
            loss[None] += k * qd.sin(x[i])

    x.from_numpy(np.array([0.1, 0.2, 0.3]))
    with qd.ad.Tape(loss=loss, grad_check=[x]):  # grad_check compares with finite differences
        energy(2.0)
    same(x.grad.to_numpy(), 2.0 * np.cos([0.1, 0.2, 0.3]), 1e-12)
    x.grad.fill(0.0)
    loss.grad[None] = 1.0
    energy.grad(3.0)
    same(x.grad.to_numpy(), 3.0 * np.cos([0.1, 0.2, 0.3]), 1e-12)
    x.grad.fill(0.0)
    energy.grad(k=0.5)  # by name, as the kernel's own call takes it
    same(x.grad.to_numpy(), 0.5 * np.cos([0.1, 0.2, 0.3]), 1e-12)

    @qd.ad.grad_replaced
    def twice(k):
        energy(k)
        energy(k)

    @qd.ad.grad_for(twice)
    def twice_grad(k):
        energy.grad(k)  # a custom gradient: once, not twice

    x.grad.fill(0.0)
    with qd.ad.Tape(loss=loss):
        twice(1.0)
    same(x.grad.to_numpy(), np.cos([0.1, 0.2, 0.3]), 1e-12)
    # A field without a gradient under a sparse SNode is read as a constant.
    plain = qd.field(qd.f64)
    qd.root.bitmasked(qd.i, 4).place(plain)

    @qd.kernel
    def reads_sparse():
        for i in plain:
            loss[None] += plain[i] * x[i]

    plain[2] = 5.0
    x.grad.fill(0.0)
    with qd.ad.Tape(loss=loss):
        reads_sparse()
    same(x.grad.to_numpy(), [0.0, 0.0, 5.0])


@probe("forward-mode autodiff: `qd.ad.FwdMode`, `needs_dual`")
def forward_mode():
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    x = qd.field(qd.f64, shape=2, needs_dual=True)
    out = qd.field(qd.f64, shape=(), needs_dual=True)

    @qd.kernel
    def f():
        for i in x:
            out[None] += x[i] * x[i] * x[i]

    x.from_numpy(np.array([1.0, 2.0]))
    with qd.ad.FwdMode(loss=out, param=x, seed=[1.0, 0.5]):
        f()
    assert out.dual[None] == pytest.approx(3 * 1.0 + 3 * 4.0 * 0.5)  # d out . seed


@probe("autodiff of fields under `pointer`, `bitmasked` and `dynamic` SNodes (`kernel.grad()`, `qd.ad.Tape`, "
       "`qd.ad.FwdMode`)")
def sparse_fields():
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    loss = qd.field(qd.f64, shape=(), needs_grad=True, needs_dual=True)
    x = qd.field(qd.f64)
    qd.root.pointer(qd.i, 4).dense(qd.i, 2).place(x, x.grad)
    x[1], x[6] = 1.5, -2.0

    @qd.kernel
    def square_sum():
        for i in x:
            loss[None] += x[i] * x[i]

    with qd.ad.Tape(loss=loss):
        square_sum()
    same(x.grad.to_numpy(), [0.0, 3.0, 0.0, 0.0, 0.0, 0.0, -4.0, 0.0])
    assert loss[None] == pytest.approx(1.5 ** 2 + 4.0)
    y = qd.field(qd.f64)
    qd.root.dynamic(qd.i, 8, chunk_size=4).place(y, y.dual)
    y[0], y[1] = 2.0, 3.0

    @qd.kernel
    def cube_sum():
        for i in y:
            loss[None] += y[i] * y[i] * y[i]

    loss[None] = 0.0
    with qd.ad.FwdMode(loss=loss, param=y, seed=[1.0] * 8):  # a seed per element of the list's capacity
        cube_sum()
    assert loss.dual[None] == pytest.approx(3 * 4.0 + 3 * 9.0)


@probe("autodiff through loops whose locals change per iteration (upstream's AD stack), `break`/`continue`")
def ad_stack_loops():
    qd.init(arch=qd.cpu, default_fp=qd.f64, ad_stack_size=16, ad_stack_experimental_enabled=True)
    x = qd.field(qd.f64, shape=2, needs_grad=True)
    y = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def iterate(n: qd.i32):
        for i in x:
            v = x[i]
            for k in range(n):
                if k == 1:
                    continue
                if k == 3:
                    break
                v = v * v
            y[None] += v

    @qd.kernel
    def long_loop(n: qd.i32):
        for i in x:
            v = x[i]
            for _ in range(n):
                v = qd.sin(v)
            y[None] += v

    x.from_numpy(np.array([0.5, 1.5]))
    with qd.ad.Tape(loss=y):
        iterate(5)  # squares at k = 0 and 2: v ** 4
    same(x.grad.to_numpy(), 4 * np.array([0.5, 1.5]) ** 3, 1e-12)
    with pytest.raises(AssertionError, match="ad_stack_size"):  # the note: more values than a stack holds raise
        with qd.ad.Tape(loss=y):
            long_loop(40)


@probe("`kernel.grad()` / `qd.ad.Tape` on torch tensors (their `.grad`)")
def torch_gradients():
    import torch

    @qd.kernel
    def square_sum(x: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in x:
            out[0] += x[i] * x[i]

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = torch.zeros(1, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qd.AutogradWarning)  # it says autograd cannot see this call: known here
        square_sum(x, out)
    assert x.grad is not None and x.grad.tolist() == [0.0, 0.0, 0.0]  # the note: a zero .grad
    out.grad = torch.ones(1)
    square_sum.grad(x, out)
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
