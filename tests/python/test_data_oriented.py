# tests/python/test_data_oriented.py: @qd.data_oriented classes, kernel and func methods, template objects.
import gc

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield


def entries(kernel):
    """How many template keys a Python-dispatched kernel holds an entry for."""
    return len(kernel._qd_kernel._instances)


@qd.data_oriented
class Particles:
    def __init__(self, n, gain):
        self.n = n
        self.gain = gain
        self.pos = qd.field(qd.f32, shape=n)
        self.vel = qd.ndarray(qd.f32, shape=n)

    @qd.func
    def velocity(self, i):
        return self.vel[i] * self.gain

    @qd.func
    def advance(self, i, dt):
        self.pos[i] += self.velocity(i) * dt

    @qd.kernel
    def step(self, dt: qd.f32):
        for i in range(self.n):
            self.advance(i, dt)

    @qd.kernel
    def total(self) -> qd.f32:
        s = 0.0
        for i in self.pos:
            s += self.pos[i]
        return s


def test_kernel_method_reads_fields_ndarrays_and_constants():
    p = Particles(5, 2.0)
    vel = np.linspace(-1, 1, 5).astype(np.float32)
    p.vel.from_numpy(vel)
    p.step(0.5)
    p.step(0.25)
    np.testing.assert_allclose(p.pos.to_numpy(), vel * 2.0 * 0.75, rtol=1e-6)
    assert p.total() == pytest.approx(float((vel * 1.5).sum()), abs=1e-5)


def test_two_instances_never_share_a_compiled_kernel():
    a, b = Particles(4, 1.0), Particles(3, 10.0)  # different fields, sizes and constants
    a.vel.from_numpy(np.arange(4, dtype=np.float32))
    b.vel.from_numpy(np.ones(3, dtype=np.float32))
    a.step(1.0)
    b.step(1.0)
    a.step(1.0)
    np.testing.assert_array_equal(a.pos.to_numpy(), 2 * np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(b.pos.to_numpy(), np.full(3, 10.0, np.float32))
    assert entries(Particles.step) >= 2


def test_same_class_same_values_still_separate_fields():
    a, b = Particles(4, 1.0), Particles(4, 1.0)
    a.vel.fill(1.0)
    b.vel.fill(3.0)
    a.step(1.0)
    b.step(1.0)
    np.testing.assert_array_equal(a.pos.to_numpy(), np.ones(4, np.float32))
    np.testing.assert_array_equal(b.pos.to_numpy(), np.full(4, 3.0, np.float32))


def test_entry_goes_with_its_instance():
    before = entries(Particles.step)
    p = Particles(2, 1.0)
    p.step(1.0)
    assert entries(Particles.step) == before + 1
    del p
    gc.collect()
    assert entries(Particles.step) == before


def test_ndarray_member_is_read_again_on_every_call(compiles):
    p = Particles(3, 1.0)
    p.vel.fill(1.0)
    p.step(1.0)
    p.vel = qd.ndarray(qd.f32, shape=3)  # rebinding an ndarray member needs no recompile
    p.vel.fill(5.0)
    p.step(1.0)
    np.testing.assert_array_equal(p.pos.to_numpy(), np.full(3, 6.0, np.float32))
    assert len(compiles) == 1
    p.vel = qd.ndarray(qd.f64, shape=3)  # another dtype: a new specialization of the same entry
    p.vel.fill(0.5)
    p.step(2.0)
    np.testing.assert_array_equal(p.pos.to_numpy(), np.full(3, 7.0, np.float32))
    assert len(compiles) == 2


@qd.data_oriented
class Shaped:
    def __init__(self, v):
        self.v = v
        self.w = qd.ndarray(qd.i32, shape=4)

    @qd.kernel
    def touch(self):
        if qd.static(len(self.v.shape) == 2):
            for i in range(self.v.shape[0]):
                self.v[i, 0] = 2
            self.w[0] = 20  # read only when v is 2-d: the entry's leaves change
        else:
            for i in range(self.v.shape[0]):
                self.v[i] = 1


def test_leaves_discovered_again_when_a_specialization_reads_new_members():
    s = Shaped(qd.ndarray(qd.i32, shape=3))
    s.touch()
    np.testing.assert_array_equal(s.v.to_numpy(), [1, 1, 1])
    s.v = qd.ndarray(qd.i32, shape=(2, 2))
    s.touch()
    np.testing.assert_array_equal(s.v.to_numpy(), [[2, 0], [2, 0]])
    assert s.w.to_numpy()[0] == 20


@qd.data_oriented
class Leaf:
    def __init__(self, n):
        self.x = qd.field(qd.i32, shape=n)
        self.scale = 3


@qd.data_oriented
class Middle:
    def __init__(self, n):
        self.leaf = Leaf(n)
        self.offset = qd.ndarray(qd.i32, shape=())


@qd.data_oriented
class Outer:
    def __init__(self, n):
        self.a = Middle(n)
        self.n = n

    @qd.kernel
    def fill(self):
        for i in range(self.n):
            self.a.leaf.x[i] = i * self.a.leaf.scale + self.a.offset[()]


def test_nested_objects():
    o = Outer(4)
    o.a.offset.fill(100)
    o.fill()
    np.testing.assert_array_equal(o.a.leaf.x.to_numpy(), np.arange(4) * 3 + 100)


@qd.kernel
def scale_into(src: qd.template(), dst: qd.template(), factor: qd.f32):
    for i in src.pos:
        dst.pos[i] = src.pos[i] * factor + dst.gain


def test_template_arguments_that_are_data_oriented_objects():
    a, b, c = Particles(3, 0.0), Particles(3, 1.0), Particles(3, 2.0)
    a.pos.from_numpy(np.array([1, 2, 3], np.float32))
    scale_into(a, b, 2.0)
    scale_into(a, c, 3.0)
    np.testing.assert_array_equal(b.pos.to_numpy(), [3, 5, 7])
    np.testing.assert_array_equal(c.pos.to_numpy(), [5, 8, 11])
    scale_into(dst=b, src=c, factor=1.0)  # keywords, and the other order of the same objects
    np.testing.assert_array_equal(b.pos.to_numpy(), [6, 9, 12])


def test_template_arguments_that_are_plain_fields_but_not_ndarrays():
    @qd.kernel
    def copy_scaled(src: qd.template(), dst: qd.template(), k: qd.template()):
        for i in range(k):
            dst[i] = src[i] * k

    f = qd.field(qd.i32, shape=3)
    g = qd.field(qd.i32, shape=3)
    f.from_numpy(np.array([1, 2, 3], np.int32))
    copy_scaled(f, g, 3)
    np.testing.assert_array_equal(g.to_numpy(), [3, 6, 9])
    h = qd.ndarray(qd.i32, shape=3)
    # As upstream: an ndarray is a runtime argument, annotated qd.types.ndarray(), never a template.
    with pytest.raises(qd.QuadrantsRuntimeTypeError, match="Ndarray shouldn't be passed in via `qd.template[(][)]`"):
        copy_scaled(g, h, 2)


@qd.data_oriented
class Counter:
    def __init__(self):
        self.count = qd.field(qd.i32, shape=())
        self.step_size = 1

    @qd.kernel
    def bump(self, times: qd.i32):
        for _ in range(times):
            self.count[None] += qd.static(self.step_size)

    @qd.kernel
    def bump_twice(self):
        self.bump_helper()
        self.bump_helper()

    @qd.func
    def bump_helper(self):
        self.count[None] += 1


def test_primitive_members_are_compile_time_constants(compiles):
    c = Counter()
    c.bump(3)
    c.step_size = 10  # baked at the first compile, as upstream: no effect on this instance
    c.bump(times=1)
    assert c.count[None] == 4
    assert len(compiles) == 1
    d = Counter()
    d.step_size = 10
    d.bump(1)
    assert d.count[None] == 10


def test_func_method_called_from_kernel_method():
    c = Counter()
    c.bump_twice()
    assert c.count[None] == 2


@qd.data_oriented(template_primitives=False)
class Live:
    def __init__(self):
        self.n = 2
        self.scale = 0.5
        self.out = qd.ndarray(qd.f32, shape=8)

    @qd.kernel
    def write(self):
        for i in range(self.n):
            self.out[i] = self.scale * (i + 1)


def test_template_primitives_false_reads_members_at_every_call(compiles):
    live = Live()
    live.write()
    live.n, live.scale = 4, 2.0
    live.write()
    np.testing.assert_allclose(live.out.to_numpy()[:4], [2, 4, 6, 8])
    assert len(compiles) == 1



@pytest.mark.parametrize("root_bakes", [True, False])
def test_the_kernel_arguments_class_decides_for_the_primitives_of_nested_objects(compiles, root_bakes):
    """As quadrants 1.3.3 (these are its results): under a root that bakes its primitives, nested objects' are
    baked too, even a nested template_primitives=False object's; under a template_primitives=False root, every
    nested object's are read at each call."""

    @qd.data_oriented
    class Baked:
        def __init__(self):
            self.n = 1

    @qd.data_oriented(template_primitives=root_bakes)
    class Outer:
        def __init__(self):
            self.live = Live()  # template_primitives=False
            self.baked = Baked()

        @qd.kernel
        def read(self) -> qd.types.vector(2, qd.i32):
            return qd.Vector([self.live.n, self.baked.n])

    outer = Outer()
    assert outer.read().tolist() == [2, 1]
    outer.live.n, outer.baked.n = 5, 7
    assert outer.read().tolist() == ([2, 1] if root_bakes else [5, 7])
    assert len(compiles) == 1

def test_subclass_keeps_kernel_methods():
    class Faster(Particles):
        pass

    p = Faster(2, 3.0)
    p.vel.fill(1.0)
    p.step(1.0)
    np.testing.assert_array_equal(p.pos.to_numpy(), [3.0, 3.0])


def test_kernel_method_on_a_plain_class_is_an_error():
    class Plain:
        def __init__(self):
            self.x = qd.field(qd.f32, shape=2)

        @qd.kernel
        def run(self):
            self.x[0] = 1

    with pytest.raises(qd.QuadrantsSyntaxError, match=r"not a @qd.data_oriented class[\s\S]*decorate class"):
        Plain().run()


def test_kernel_method_cannot_call_another_kernel():
    @qd.data_oriented
    class Calls:
        def __init__(self):
            self.x = qd.field(qd.f32, shape=2)

        @qd.kernel
        def inner(self):
            self.x[0] = 1

        @qd.kernel
        def outer(self):
            self.inner()

    with pytest.raises(qd.QuadrantsSyntaxError, match="A kernel cannot call another kernel"):
        Calls().outer()


def test_missing_member_names_the_object():
    @qd.data_oriented
    class Missing:
        @qd.kernel
        def run(self):
            self.nope[0] = 1

    with pytest.raises(qd.QuadrantsTypeError, match="Missing object 'self' has no attribute 'nope'"):
        Missing().run()


def test_wrong_argument_count_names_the_parameters():
    p = Particles(2, 1.0)
    with pytest.raises(TypeError, match="dt"):
        p.step()


def test_reset_drops_entries_and_recompiles():
    p = Particles(2, 1.0)
    p.vel.fill(1.0)
    p.step(1.0)
    qd.init(arch=qd.cpu)  # frees the old fields: a new instance is needed
    q = Particles(2, 1.0)
    q.vel.fill(2.0)
    q.step(1.0)
    np.testing.assert_array_equal(q.pos.to_numpy(), [2.0, 2.0])


def test_field_member_bounds_error_names_the_member():
    @qd.data_oriented
    class Small:
        def __init__(self):
            self.values = qd.ndarray(qd.i32, shape=2)

        @qd.kernel
        def poke(self, i: qd.i32):
            self.values[i] = 1

    qd.init(arch=qd.cpu, debug=True)
    with pytest.raises(IndexError, match=r"self\.values"):
        Small().poke(5)


def test_static_on_a_runtime_primitive_names_it():
    @qd.data_oriented(template_primitives=False)
    class Runtime:
        def __init__(self):
            self.n = 3
            self.out = qd.field(qd.i32, shape=4)

        @qd.kernel
        def run(self):
            for i in range(qd.static(self.n)):
                self.out[i] = i

    with pytest.raises(qd.QuadrantsTypeError, match="'self.n' is a runtime kernel argument"):
        Runtime().run()


def test_dataclass_instance_for_a_template_parameter_warns_as_upstream():
    import dataclasses

    @dataclasses.dataclass
    class Holder:
        x: qd.types.ndarray()

    @qd.kernel
    def run(h: qd.template()):
        h.x[0] = 5

    holder = Holder(qd.ndarray(qd.i32, shape=2))
    with pytest.warns(DeprecationWarning, match="parameter 'h': passing a .*Holder dataclass instance into a "
                      "qd.Template-annotated kernel parameter is deprecated"):
        run(holder)
    assert holder.x[0] == 5


@qd.data_oriented
class Energy:
    def __init__(self, n):
        self.x = qd.field(qd.f32, shape=n, needs_grad=True)
        self.total = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def accumulate(self, k: qd.f32):
        for i in self.x:
            self.total[None] += k * self.x[i] ** 2


def test_a_kernel_methods_grad_runs_the_adjoint_for_its_own_instance():
    import inspect

    a, b = Energy(3), Energy(3)
    a.x.from_numpy(np.array([1, 2, 3], np.float32))
    b.x.from_numpy(np.array([5, 5, 5], np.float32))
    a.accumulate(2.0)
    assert a.total[None] == pytest.approx(28.0) and b.total[None] == 0.0
    a.total.grad[None] = 1.0
    a.accumulate.grad(2.0)  # upstream's obj.kernel.grad(): bound to a, not b
    np.testing.assert_allclose(a.x.grad.to_numpy(), [4, 8, 12])
    np.testing.assert_allclose(b.x.grad.to_numpy(), [0, 0, 0])
    Energy.accumulate.grad(b, 1.0)  # the unbound spelling still takes the instance first
    np.testing.assert_allclose(b.x.grad.to_numpy(), [0, 0, 0])  # b.total.grad is 0: nothing flows
    assert list(inspect.signature(a.accumulate).parameters) == ["k"]
    assert a.accumulate.__self__ is a and a.accumulate.__func__ is Energy.accumulate
    with qd.ad.Tape(loss=b.total):
        b.accumulate(1.0)
    np.testing.assert_allclose(b.x.grad.to_numpy(), [10, 10, 10])
