# tests/python/test_struct_types.py: struct types (qd.types.struct, @qd.dataclass), struct fields and values.
"""Struct types from issue 12: struct fields in kernels and in Python scope, struct values, @qd.dataclass
methods, struct func arguments and returns, to_numpy/from_numpy; results against numpy or by hand."""

import copy

import numpy as np
import pytest

import quadrants as qd

vec2 = qd.types.vector(2, qd.f32)
vec3 = qd.types.vector(3, qd.f32)
mat2 = qd.types.matrix(2, 2, qd.f32)


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def _particle_type():
    return qd.types.struct(pos=vec3, vel=vec3, mass=qd.f32)


def test_particle_system_steps_like_numpy():
    Particle = _particle_type()
    n, dt, steps = 16, 0.01, 5
    particles = Particle.field(shape=n)
    rng = np.random.default_rng(0)
    state = {
        "pos": rng.standard_normal((n, 3)).astype(np.float32),
        "vel": rng.standard_normal((n, 3)).astype(np.float32),
        "mass": rng.uniform(0.5, 2.0, n).astype(np.float32),
    }
    particles.from_numpy(state)
    gravity = np.array([0, -9.8, 0], np.float32)

    @qd.kernel
    def step(dt: qd.f32):
        for i in particles:
            force = vec3(0, -9.8, 0) * particles[i].mass
            particles[i].vel += dt * force / particles[i].mass
            particles[i].pos += dt * particles[i].vel

    for _ in range(steps):
        step(dt)
        state["vel"] = state["vel"] + np.float32(dt) * gravity
        state["pos"] = state["pos"] + np.float32(dt) * state["vel"]
    got = particles.to_numpy()
    assert set(got) == {"pos", "vel", "mass"}
    np.testing.assert_allclose(got["vel"], state["vel"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["pos"], state["pos"], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got["mass"], state["mass"])


def test_kernel_builds_structs_and_copies_them_whole():
    Particle = _particle_type()
    particles = Particle.field(shape=4)
    spare = Particle.field(shape=4)

    @qd.kernel
    def init():
        for i in particles:
            s = Particle(pos=vec3(i, 2 * i, 0), mass=i + 0.5)  # vel is not given: zero
            particles[i] = s
            s.mass = 100.0  # s is a copy: the field keeps i + 0.5
            spare[i] = particles[i]
            spare[i].vel = vec3(1)

    init()
    got = particles.to_numpy()
    np.testing.assert_array_equal(got["pos"], [[i, 2 * i, 0] for i in range(4)])
    np.testing.assert_array_equal(got["vel"], np.zeros((4, 3)))
    np.testing.assert_array_equal(got["mass"], [0.5, 1.5, 2.5, 3.5])
    other = spare.to_numpy()
    np.testing.assert_array_equal(other["pos"], got["pos"])
    np.testing.assert_array_equal(other["vel"], np.ones((4, 3)))


def test_struct_locals_are_values():
    Pair = qd.types.struct(a=qd.i32, b=qd.f32)
    out = qd.field(qd.f32, shape=6)

    @qd.kernel
    def run():
        s = Pair(7, 2.5)
        t = s  # a copy
        t.a = 1
        s = Pair(s.b, s.a)  # every member is read before any is stored: a is 2 (2.5 truncated), b is 7
        out[0] = s.a
        out[1] = s.b
        out[2] = t.a
        u = qd.Struct(x=1.5, y=vec2(3, 4))  # an untyped struct
        out[3] = u.x + u.y[1]
        w = Pair(a=3.9)  # int member truncates; b defaults to 0
        out[4] = w.a
        out[5] = w.b

    run()
    np.testing.assert_array_equal(out.to_numpy(), [2, 7, 1, 5.5, 3, 0])


def test_nested_structs_in_fields_and_kernels():
    Line = qd.types.struct(direction=vec3, length=qd.f32)
    Item = qd.types.struct(line=Line, idx=qd.i32, frame=mat2)
    items = Item.field(shape=5)
    lines = Line.field(shape=5)

    @qd.kernel
    def fill_lines():
        for i in lines:
            lines[i] = Line(direction=vec3(1, 0, 0), length=i + 0.5)

    @qd.kernel
    def build():
        for i in items:
            items[i].idx = 10 * i
            items[i].line = lines[i]
            items[i].line.direction.y = i
            items[i].frame = qd.Matrix([[i, 1], [2, 3]])

    @qd.kernel
    def total() -> qd.f32:
        acc = 0.0
        for i in range(5):
            item = items[i]
            acc += item.line.length * item.line.direction.y + item.frame[0, 0] + item.idx
        return acc

    fill_lines()
    build()
    got = items.to_numpy()
    assert set(got) == {"line", "idx", "frame"} and set(got["line"]) == {"direction", "length"}
    np.testing.assert_array_equal(got["idx"], [0, 10, 20, 30, 40])
    np.testing.assert_array_equal(got["line"]["length"], [0.5, 1.5, 2.5, 3.5, 4.5])
    np.testing.assert_array_equal(got["line"]["direction"], [[1, i, 0] for i in range(5)])
    assert got["frame"].shape == (5, 2, 2)
    expected = sum((i + 0.5) * i + i + 10 * i for i in range(5))
    assert total() == pytest.approx(expected)
    assert items[3].line.length == 3.5
    np.testing.assert_array_equal(items[3].line.direction.to_numpy(), [1, 3, 0])


def test_dataclass_methods():
    @qd.dataclass
    class Sphere:
        center: vec3
        radius: qd.f32

        @qd.func
        def area(self):
            return 4 * np.pi * self.radius * self.radius

        @qd.func
        def volume(self):
            return self.area() * self.radius / 3

        @qd.func
        def grow(self: qd.template(), by):  # a template `self` refers to the caller's struct
            self.radius += by

        @qd.func
        def grow_copy(self, by):  # `self` is a copy, as upstream
            self.radius += by

        def py_area(self):
            return 4 * np.pi * self.radius**2

    spheres = Sphere.field(shape=3)
    for i in range(3):
        spheres[i] = Sphere(center=vec3(i), radius=i + 1)
    out = qd.field(qd.f32, shape=5)

    @qd.kernel
    def run():
        s = Sphere(vec3(0), 2.0)
        out[0] = s.area()
        out[1] = s.volume()
        s.grow(1.0)
        s.grow_copy(100.0)
        out[2] = s.radius
        out[3] = spheres[2].area()
        spheres[1].grow(0.5)  # through the field element
        out[4] = spheres[1].radius

    run()
    got = out.to_numpy()
    np.testing.assert_allclose(got, [16 * np.pi, 32 * np.pi / 3, 3, 36 * np.pi, 2.5], rtol=1e-6)
    assert spheres[1].radius == 2.5
    assert Sphere(center=vec3(0), radius=2).py_area() == pytest.approx(16 * np.pi)
    assert Sphere.keys == ["center", "radius"]


def test_func_struct_arguments_and_returns():
    Pair = qd.types.struct(a=qd.f32, b=qd.f32)

    @qd.func
    def swapped(p: Pair) -> Pair:
        p.a += 0  # p is the func's own copy
        return Pair(p.b, p.a)

    @qd.func
    def clamp_first(p) -> Pair:  # returns from inside an if: through a result slot
        if p.a > 1:
            return Pair(1, p.b)
        return p

    @qd.func
    def scale(p: qd.template(), k):  # by reference: writes the caller's struct
        p.a *= k
        p.b *= k

    out = qd.field(qd.f32, shape=8)

    @qd.kernel
    def run():
        s = Pair(2, 3)
        t = swapped(s)
        out[0] = t.a
        out[1] = t.b
        out[2] = clamp_first(s).a
        out[3] = clamp_first(Pair(0.5, 0)).a
        scale(s, 10.0)
        out[4] = s.a
        out[5] = s.b
        u = swapped(qd.Struct(a=7, b=8))  # an untyped struct with the same members is cast to Pair
        out[6] = u.a
        out[7] = u.b

    run()
    np.testing.assert_array_equal(out.to_numpy(), [3, 2, 1, 0.5, 20, 30, 8, 7])


def test_nested_dataclass_methods():
    @qd.dataclass
    class Inner:
        a: qd.i32

        @qd.func
        def get(self):
            return self.a

    @qd.dataclass
    class Outer:
        inner: Inner
        b: qd.i32

        @qd.func
        def total(self) -> qd.i32:
            return self.inner.get() + self.b

    @qd.kernel
    def run() -> qd.i32:
        x = Outer(Inner(40), 2)
        return x.total()

    assert run() == 42
    outer = Outer(Inner(1), 2)
    assert outer.inner.a == 1 and outer.b == 2
    nested_from_number = Outer(5)  # a number for a struct member sets the nested struct's first member
    assert nested_from_number.inner.a == 5 and nested_from_number.b == 0


def test_python_scope_element_access():
    Item = qd.types.struct(v=vec3, m=mat2, k=qd.i32, flag=bool)
    items = qd.field(Item, shape=(2, 3))
    assert isinstance(items, qd.Field) and isinstance(items, qd.StructField)
    assert items.shape == (2, 3) and items.keys == ["v", "m", "k", "flag"]
    items[1, 2].k = 7
    items[1, 2].v = [1, 2, 3]
    items[1, 2].v[0] = 9  # a vector member writes through
    items[1, 2].m[1, 0] = 4
    items[1, 2].flag = True
    items[0, 0] = {"v": [4, 5, 6], "m": [[1, 2], [3, 4]], "k": 3.7, "flag": 0}
    items[0, 1] = Item(v=vec3(1), k=-2)
    got = items.to_numpy()
    np.testing.assert_array_equal(got["v"][1, 2], [9, 2, 3])
    np.testing.assert_array_equal(got["m"][1, 2], [[0, 0], [4, 0]])
    assert got["k"][1, 2] == 7 and got["flag"][1, 2]
    np.testing.assert_array_equal(got["v"][0, 0], [4, 5, 6])
    assert got["k"][0, 0] == 3 and not got["flag"][0, 0]
    np.testing.assert_array_equal(got["v"][0, 1], [1, 1, 1])
    assert got["k"][0, 1] == -2
    element = items[1, 2]
    assert element.k == 7 and element["k"] == 7 and element.keys == ["v", "m", "k", "flag"]
    assert element.to_dict() == {"v": [9, 2, 3], "m": [[0, 0], [4, 0]], "k": 7, "flag": True}
    detached = copy.deepcopy(element)
    element.k = 8  # the element reads the field again; the copy does not change
    assert element.k == 8 and detached.k == 7
    assert isinstance(detached, Item)


def test_python_scope_values():
    Particle = _particle_type()
    p = Particle(vec3(1, 2, 3), mass=2)
    assert p.mass == 2.0 and isinstance(p.mass, float)
    np.testing.assert_array_equal(p.vel.to_numpy(), [0, 0, 0])
    p.vel = [1, 1, 1]
    p.mass = 3  # converted to the member's type
    assert p.to_dict() == {"pos": [1, 2, 3], "vel": [1, 1, 1], "mass": 3.0}
    s = qd.Struct({"a": 2, "b": [1, 2]})
    assert s.a == 2 and s.b[1] == 2 and s.keys == ["a", "b"]
    assert isinstance(p, Particle) and not isinstance(s, Particle)
    s2 = qd.Struct(a=1, nested={"c": 3.5})
    assert s2.nested.c == 3.5


def test_round_trip_numpy_and_torch():
    Inner = qd.types.struct(w=qd.i16, m=mat2)
    Rec = qd.types.struct(x=qd.f64, v=vec3, inner=Inner, flag=qd.u1)
    shape = (3, 4)
    recs = Rec.field(shape=shape)
    rng = np.random.default_rng(1)
    data = {
        "x": rng.standard_normal(shape),
        "v": rng.standard_normal(shape + (3,)).astype(np.float32),
        "inner": {"w": rng.integers(-1000, 1000, shape).astype(np.int16),
                  "m": rng.standard_normal(shape + (2, 2)).astype(np.float32)},
        "flag": rng.integers(0, 2, shape).astype(bool),
    }
    recs.from_numpy(data)
    got = recs.to_numpy()
    for key in ("x", "v", "flag"):
        np.testing.assert_array_equal(got[key], data[key])
        assert got[key].dtype == data[key].dtype
    for key in ("w", "m"):
        np.testing.assert_array_equal(got["inner"][key], data["inner"][key])
    assert recs[2, 1].inner.w == data["inner"]["w"][2, 1]

    torch = pytest.importorskip("torch")
    tensors = recs.to_torch()
    assert isinstance(tensors["inner"]["m"], torch.Tensor)
    again = Rec.field(shape=shape)
    again.from_torch(tensors)
    np.testing.assert_array_equal(again.to_numpy()["inner"]["m"], data["inner"]["m"])


def test_fill_and_copy_from():
    Item = qd.types.struct(a=qd.f32, b=qd.types.vector(3, qd.i32))
    x = Item.field(shape=4)
    x.fill(2.5)  # every scalar of every member; the int vector truncates
    got = x.to_numpy()
    np.testing.assert_array_equal(got["a"], np.full(4, 2.5))
    np.testing.assert_array_equal(got["b"], np.full((4, 3), 2))
    x.fill(Item(a=1, b=[1, 2, 3]))
    np.testing.assert_array_equal(x.to_numpy()["b"], np.tile([1, 2, 3], (4, 1)))
    x.b.fill(7)  # a member field on its own
    y = Item.field(shape=4)
    y.copy_from(x)
    np.testing.assert_array_equal(y.to_numpy()["b"], np.full((4, 3), 7))
    np.testing.assert_array_equal(y.to_numpy()["a"], np.ones(4))


def test_loops_over_struct_fields():
    Cell = qd.types.struct(value=qd.i32, pos=vec2)
    grid = Cell.field(shape=(3, 4))
    scalar = Cell.field(shape=())

    @qd.kernel
    def run():
        for i, j in grid:
            grid[i, j].value = i * 10 + j
        for I in qd.grouped(grid):
            grid[I].pos = vec2(I[0], I[1])
        scalar[None].value = grid.shape[0] * grid.shape[1]

    run()
    got = grid.to_numpy()
    np.testing.assert_array_equal(got["value"], np.arange(3)[:, None] * 10 + np.arange(4))
    np.testing.assert_array_equal(got["pos"][2, 3], [2, 3])
    assert scalar[None].value == 12


def test_struct_field_as_template_argument():
    Particle = _particle_type()
    a, b = Particle.field(shape=3), Particle.field(shape=3)

    @qd.kernel
    def shift(p: qd.template(), dx: qd.f32):
        for i in p:
            p[i].pos.x += dx
            p[i].mass = i

    shift(a, 1.0)
    shift(b, 2.0)
    shift(a, 1.0)
    np.testing.assert_array_equal(a.to_numpy()["pos"][:, 0], [2, 2, 2])
    np.testing.assert_array_equal(b.to_numpy()["pos"][:, 0], [2, 2, 2])
    np.testing.assert_array_equal(b.to_numpy()["mass"], [0, 1, 2])


def test_struct_index_with_side_effects_runs_once():
    Pair = qd.types.struct(a=qd.i32, b=qd.i32)
    pairs = Pair.field(shape=8)
    count = qd.field(qd.i32, shape=())

    @qd.kernel
    def push():
        for i in range(4):
            pairs[qd.atomic_add(count[None], 1)] = Pair(i, -i)

    push()
    assert count[None] == 4
    got = pairs.to_numpy()
    assert sorted(got["a"][:4].tolist()) == [0, 1, 2, 3]
    np.testing.assert_array_equal(got["a"] + got["b"], np.zeros(8))


# ---- errors -------------------------------------------------------------------------------------


def test_member_of_unsupported_type_is_named():
    with pytest.raises(TypeError, match=r"Struct member 'b' must be a scalar dtype .* but got 'f32'"):
        qd.types.struct(a=qd.f32, b="f32")
    with pytest.raises(TypeError, match=r"Struct member 'data' of Holder must be .* but got <qd.ndarray"):
        @qd.dataclass
        class Holder:
            data: qd.ndarray(qd.f32, 4)


def test_dataclass_defaults_are_rejected():
    with pytest.raises(qd.QuadrantsSyntaxError, match="Default value in @dataclass is not supported"):
        @qd.dataclass
        class Foo:
            a: int
            b: float = 3.14


def test_constructor_errors_name_the_member():
    Particle = _particle_type()
    with pytest.raises(TypeError, match=r"has no member\(s\) 'mas'; its members are pos, vel, mass"):
        Particle(mas=1)
    with pytest.raises(TypeError, match=r"has 3 member\(s\) \(pos, vel, mass\), but got 4 positional"):
        Particle(1, 2, 3, 4)
    with pytest.raises(TypeError, match=r"member 'mass' is a scalar qd.f32, but got \[1, 2\]"):
        Particle(mass=[1, 2])
    with pytest.raises(ValueError, match=r"member 'pos' is a qd.types.vector\(3, qd.f32\), but got \[1, 2\]"):
        Particle(pos=[1, 2])

    @qd.kernel
    def unknown():
        Particle(mas=1.0)

    with pytest.raises(qd.QuadrantsTypeError, match=r"has no member\(s\) 'mas'; its members are pos, vel, mass"):
        unknown()

    @qd.kernel
    def wrong_kind():
        Particle(vec3(0), vec3(0), vec3(1))

    with pytest.raises(qd.QuadrantsTypeError, match=r"member 'mass' is a scalar f32, but got a 3-vector"):
        wrong_kind()


def test_assignment_errors_name_the_members():
    Particle = _particle_type()
    particles = Particle.field(shape=2)

    @qd.kernel
    def mismatched():
        particles[0] = qd.Struct(pos=vec3(0), mass=1.0)

    with pytest.raises(qd.QuadrantsTypeError, match="expected a struct with the members pos, vel, mass, but got a "
                                                    "struct with members pos, mass"):
        mismatched()

    @qd.kernel
    def scalar_into_struct():
        s = Particle()
        s = 1.0

    with pytest.raises(qd.QuadrantsTypeError, match="Cannot assign the Python value 1.0"):
        scalar_into_struct()

    @qd.kernel
    def unknown_member():
        particles[0].charge = 1.0

    with pytest.raises(qd.QuadrantsTypeError, match=r"has no member 'charge' \(its members: pos, vel, mass\)"):
        unknown_member()

    with pytest.raises(TypeError, match="Cannot assign a struct with members pos to one with members pos, vel, mass"):
        particles[0] = {"pos": [1, 2, 3]}


def test_from_numpy_with_a_missing_member():
    Inner = qd.types.struct(a=qd.f32, b=qd.f32)
    Rec = qd.types.struct(v=vec3, inner=Inner)
    recs = Rec.field(shape=2)
    recs.fill(1)
    with pytest.raises(KeyError, match=r"no entry for member\(s\) 'inner'"):
        recs.from_numpy({"v": np.zeros((2, 3), np.float32)})
    with pytest.raises(KeyError, match=r"no entry for member\(s\) 'inner.b'"):
        recs.from_numpy({"v": np.zeros((2, 3), np.float32), "inner": {"a": np.zeros(2, np.float32)}})
    with pytest.raises(TypeError, match=r"expects a dict with one entry per member \(v, inner\)"):
        recs.from_numpy(np.zeros(2))
    np.testing.assert_array_equal(recs.to_numpy()["v"], np.ones((2, 3)))  # nothing was copied


def test_struct_ndarrays_are_not_supported():
    with pytest.raises(TypeError, match="qd.ndarray.. does not take struct types"):
        qd.ndarray(_particle_type(), 4)


def test_scalar_leaves_flatten_and_unflatten():
    Inner = qd.types.struct(a=qd.i32, m=mat2)
    Rec = qd.types.struct(v=vec3, inner=Inner, w=qd.f64)
    assert Rec.scalar_leaves() == [(("v", 0), qd.f32), (("v", 1), qd.f32), (("v", 2), qd.f32), (("inner", "a"), qd.i32),
                                   (("inner", "m", 0), qd.f32), (("inner", "m", 1), qd.f32),
                                   (("inner", "m", 2), qd.f32), (("inner", "m", 3), qd.f32), (("w",), qd.f64)]
    value = Rec(v=[1, 2, 3], inner=Inner(a=4, m=[[5, 6], [7, 8]]), w=9)
    scalars = Rec.flatten(value)
    assert scalars == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert Rec.unflatten(scalars).to_dict() == value.to_dict()
    assert Rec.flatten({"v": 0, "inner": {"a": 1.9, "m": 2}, "w": 3}) == [0, 0, 0, 1, 2, 2, 2, 2, 3]
    with pytest.raises(ValueError, match="has 9 scalars, but got 2"):
        Rec.unflatten([1, 2])


def test_struct_fields_with_needs_grad_have_a_struct_field_of_gradients():
    pair = qd.types.struct(pos=qd.math.vec3, mass=qd.f32, inner=qd.types.struct(a=qd.f32))
    f = pair.field(shape=4, needs_grad=True)
    assert f.grad.keys == ["pos", "mass", "inner"] and f.grad.pos is f.pos.grad and f.grad.inner.a is f.inner.a.grad
    f.grad.fill(0)

    @qd.kernel
    def bump():
        for i in range(4):
            f.grad[i].mass += 2.0
            f.grad.inner.a[i] += 1.0

    bump()
    assert f.grad.mass.to_numpy().tolist() == [2] * 4 and f.inner.a.grad.to_numpy().tolist() == [1] * 4
    assert pair.field(shape=2).grad is None
