# tests/python/test_unplaced_grads.py: a float field made without needs_grad/needs_dual has .grad and .dual as
# upstream's do, unplaced: using them raises that they have no allocation, and qd.root.lazy_grad() places them.
import pickle

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield


@pytest.mark.parametrize("make", [lambda: qd.field(qd.f32, shape=(4,)), lambda: qd.Vector.field(2, qd.f32, shape=4),
                                  lambda: qd.tensor(dtype=qd.f32, shape=(4,), backend=qd.Backend.FIELD)])
def test_using_the_grad_of_a_field_without_needs_grad_says_it_has_no_allocation(make):
    x = make()
    assert x.grad is not None and x.dual is not None and not x.has_grad() and not x.has_dual()
    values = np.zeros_like(x.to_numpy())  # what the primal, which is placed, holds
    uses = [lambda t: t.fill(0.0), lambda t: t.to_numpy(), lambda t: t[0], lambda t: t.from_numpy(values)]
    for use in uses:
        with pytest.raises(qd.QuadrantsRuntimeError, match=r"The grad of .* has no allocation: .*needs_grad=True"):
            use(x.grad)
    with pytest.raises(qd.QuadrantsRuntimeError, match=r"The dual of .* has no allocation: .*needs_dual=True"):
        x.dual.fill(0.0)


def test_integer_fields_have_no_grad_and_needs_grad_fields_a_placed_one():
    assert qd.field(qd.i32, shape=4).grad is None
    y = qd.field(qd.f32, shape=4, needs_grad=True)
    y.grad.fill(2.0)
    assert y.has_grad() and y.grad.to_numpy().tolist() == [2.0] * 4


def test_lazy_grad_places_the_grads_of_fields_made_with_a_shape():
    x = qd.field(qd.f32, shape=4)
    qd.root.lazy_grad()
    assert x.has_grad() and x.grad[0] == 0.0

    @qd.kernel
    def double():
        for i in x:
            x[i] = 2 * x[i]

    x.fill(1.0)
    x.grad.fill(1.0)
    double.grad()
    assert x.grad.to_numpy().tolist() == [2.0] * 4


def test_clear_all_gradients_and_pickling_skip_unplaced_grads():
    x = qd.field(qd.f32, shape=3)
    x.fill(1.5)
    qd.ad.clear_all_gradients()
    restored = pickle.loads(pickle.dumps(x))
    assert restored.to_numpy().tolist() == [1.5] * 3 and not restored.has_grad()
