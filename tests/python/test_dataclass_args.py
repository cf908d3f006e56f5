# tests/python/test_dataclass_args.py: kernel and func parameters annotated with (frozen) dataclasses, as Genesis uses them.
import dataclasses
from functools import partial

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield


# Genesis declares its data as frozen dataclasses whose members are all annotated qd.types.ndarray().
DATA = partial(dataclasses.dataclass, frozen=True)
V = qd.types.ndarray()


@DATA
class Joints:
    stiffness: V
    damping: V


@DATA
class State:
    pos: V
    vel: V
    joints: Joints
    dt: qd.f32
    steps: int


@qd.func
def spring_force(joints: Joints, q, v, i):
    return -joints.stiffness[i] * q - joints.damping[i] * v


@qd.func
def integrate(state: State, i):
    q, v = state.pos[i], state.vel[i]
    v_new = v + spring_force(state.joints, q, v, i) * state.dt
    state.vel[i] = v_new
    state.pos[i] = q + v_new * state.dt


@qd.kernel
def simulate(state: State):
    for i in range(state.pos.shape[0]):
        for _ in range(state.steps):
            integrate(state, i)


def make_state(n, dt=0.01, steps=10, dtype=np.float32):
    rng = np.random.default_rng(n)
    joints = Joints(rng.uniform(1, 2, n).astype(dtype), rng.uniform(0, 0.5, n).astype(dtype))
    return State(rng.normal(size=n).astype(dtype), np.zeros(n, dtype), joints, dt, steps)


def simulate_numpy(state):
    pos, vel = state.pos.astype(np.float64), state.vel.astype(np.float64)
    for _ in range(state.steps):
        force = -state.joints.stiffness * pos - state.joints.damping * vel
        vel = vel + force * state.dt
        pos = pos + vel * state.dt
    return pos, vel


def test_members_scalars_and_nested_dataclasses_through_funcs():
    state = make_state(64)
    expected_pos, expected_vel = simulate_numpy(state)
    simulate(state)
    np.testing.assert_allclose(state.pos, expected_pos, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state.vel, expected_vel, rtol=1e-5, atol=1e-6)


def test_scalar_members_are_runtime_arguments(compiles):
    state = make_state(8, steps=3)
    simulate(state)
    other = make_state(8, dt=0.5, steps=7)
    expected_pos, _ = simulate_numpy(other)
    simulate(other)
    np.testing.assert_allclose(other.pos, expected_pos, rtol=1e-5, atol=1e-6)
    assert len(compiles) == 1


def test_only_members_read_become_parameters():
    state = make_state(4)
    text = simulate.export_ir(state)
    params = text.split("(params", 1)[1].split("\n", 1)[0]
    for name in ("state__pos", "state__vel", "state__joints__stiffness", "state__joints__damping",
                 "(scalar state__dt f32)", "state__steps"):
        assert name in params

    @qd.kernel
    def only_damping(state: State, out: qd.types.ndarray()):
        for i in range(out.shape[0]):
            out[i] = state.joints.damping[i]

    text = only_damping.export_ir(state, np.zeros(4, np.float32))
    params = text.split("(params", 1)[1].split("\n", 1)[0]
    assert "state__joints__damping" in params and "state__pos" not in params and "stiffness" not in params


WIDE_MEMBERS = [f"m{i}" for i in range(30)]
Wide = dataclasses.make_dataclass("Wide", [(name, V) for name in WIDE_MEMBERS], frozen=True)


@qd.func
def sum_members(w: Wide, i):
    total = 0.0
    for name in qd.static(WIDE_MEMBERS):
        total += getattr(w, name)[i]
    return total


def test_thirty_ndarray_members():
    arrays = [np.full(5, k, np.float32) + np.arange(5, dtype=np.float32) for k in range(30)]
    wide = Wide(*arrays)

    @qd.kernel
    def reduce(w: Wide, out: qd.types.ndarray()):
        for i in range(out.shape[0]):
            out[i] = sum_members(w, i)

    out = np.zeros(5, np.float32)
    reduce(wide, out)
    np.testing.assert_allclose(out, np.sum(arrays, axis=0))
    arrays[7][:] = 100  # the same instance's arrays are read again on every call
    reduce(wide, out)
    np.testing.assert_allclose(out, np.sum(arrays, axis=0))


def test_qd_ndarrays_vector_members_and_fields():
    @DATA
    class Bodies:
        pos: qd.types.ndarray(dtype=qd.types.vector(3, qd.f32), ndim=1)
        mass: V
        gravity: qd.template()  # a field: compile-time, selects the compiled kernel by identity

    @qd.kernel
    def fall(b: Bodies, dt: qd.f32):
        for i in range(b.pos.shape[0]):
            b.pos[i] += b.gravity[None] * b.mass[i] * dt

    pos = qd.Vector.ndarray(3, qd.f32, shape=(3,))
    mass = qd.ndarray(qd.f32, shape=3)
    mass.from_numpy(np.array([1, 2, 3], np.float32))
    g1 = qd.Vector.field(3, qd.f32, shape=())
    g1[None] = [0, 0, -1]
    g2 = qd.Vector.field(3, qd.f32, shape=())
    g2[None] = [1, 0, 0]
    fall(Bodies(pos, mass, g1), 1.0)
    fall(Bodies(pos, mass, g2), 0.5)
    expected = np.array([[0.5, 0, -1], [1, 0, -2], [1.5, 0, -3]], np.float32)
    np.testing.assert_allclose(pos.to_numpy(), expected)


def scaled_fill():
    """A fresh frozen dataclass with a template member, and a kernel taking it (each test compiles its own)."""

    @DATA
    class Config:
        scale: qd.template()
        out: V

    @qd.kernel
    def fill(c: Config):
        for i in range(c.out.shape[0]):
            c.out[i] = i * c.scale

    return Config, fill


def test_template_member_values_select_the_compiled_kernel(compiles):
    Config, fill = scaled_fill()
    out = np.zeros(3, np.int32)
    fill(Config(2, out))
    np.testing.assert_array_equal(out, [0, 2, 4])
    fill(Config(5, out))
    np.testing.assert_array_equal(out, [0, 5, 10])
    fill(Config(2, out))
    assert len(compiles) == 2


def test_non_frozen_dataclass_member_rebound_between_calls():
    @dataclasses.dataclass
    class Buffers:
        x: V

    @qd.kernel
    def bump(b: Buffers):
        for i in range(b.x.shape[0]):
            b.x[i] += 1

    b = Buffers(np.zeros(3, np.int32))
    bump(b)
    first = b.x
    b.x = np.zeros(4, np.int32)
    bump(b)
    np.testing.assert_array_equal(first, [1, 1, 1])
    np.testing.assert_array_equal(b.x, [1, 1, 1, 1])


def test_dataclass_with_template_and_data_oriented_arguments_and_keywords():
    @qd.data_oriented
    class StaticConfig:
        def __init__(self, use_damping):
            self.use_damping = use_damping

    @qd.kernel
    def step(state: State, config: qd.template(), out: qd.types.ndarray()):
        for i in range(out.shape[0]):
            value = state.pos[i]
            if qd.static(config.use_damping):
                value *= state.joints.damping[i]
            out[i] = value

    state = make_state(4)
    out = np.zeros(4, np.float32)
    step(state, StaticConfig(False), out)
    np.testing.assert_allclose(out, state.pos)
    step(out=out, config=StaticConfig(True), state=state)
    np.testing.assert_allclose(out, state.pos * state.joints.damping, rtol=1e-6)


def test_unannotated_func_parameters_and_sub_struct_arguments():
    @qd.func
    def first(joints):  # no annotation: the dataclass reference passes through
        return joints.stiffness[0]

    @qd.func
    def via_keyword(*, joints: Joints):
        return joints.damping[0]

    @qd.kernel
    def read(state: State) -> qd.f32:
        return first(state.joints) + via_keyword(joints=state.joints)

    state = make_state(2)
    assert read(state) == pytest.approx(float(state.joints.stiffness[0] + state.joints.damping[0]))


def test_func_method_of_a_dataclass():
    @DATA
    class Pair:
        a: V
        b: V

        @qd.func
        def dot(self, i):
            return self.a[i] * self.b[i]

    @qd.kernel
    def dots(p: Pair, out: qd.types.ndarray()):
        for i in range(out.shape[0]):
            out[i] = p.dot(i)

    a, b = np.arange(4, dtype=np.float32), np.full(4, 3, np.float32)
    out = np.zeros(4, np.float32)
    dots(Pair(a, b), out)
    np.testing.assert_array_equal(out, a * b)


def test_unsupported_member_type_names_member_expected_and_given():
    @DATA
    class Bad:
        ok: V
        items: list

    @qd.kernel  # upstream reads member annotations when a kernel is called: defining one is no error
    def k(bad: Bad):
        pass

    for _ in range(2):  # every call raises, not only the first
        with pytest.raises(qd.QuadrantsTypeError) as info:
            k(Bad(None, []))

    message = str(info.value)
    assert "member 'items' of dataclass" in message and "Bad is annotated list" in message
    assert "qd.types.ndarray(...), qd.Tensor, a scalar dtype" in message and "another dataclass" in message


def test_vector_member_is_rejected_when_the_kernel_is_called():
    @DATA
    class WithVector:
        v: qd.types.vector(3, qd.f32)

    @qd.kernel
    def k(w: WithVector):
        pass

    with pytest.raises(qd.QuadrantsTypeError, match="member 'v' of dataclass .*WithVector is annotated"):
        k(WithVector(None))



def test_wrong_object_for_a_dataclass_parameter():
    with pytest.raises(TypeError, match="argument 'state' must be a State instance .* but got Joints"):
        simulate(make_state(2).joints)
    state = make_state(2)
    simulate(state)
    with pytest.raises(TypeError, match="argument 'state' must be a State instance .* but got int"):
        simulate(3)  # after the first call too, when the generated entry meets it


def test_member_value_of_the_wrong_kind_names_the_member():
    state = dataclasses.replace(make_state(2), vel=[0.0, 0.0])
    with pytest.raises(TypeError, match=r"argument 'state\.vel': expected an array .* but got"):
        simulate(state)

    @DATA
    class Typed:
        x: qd.types.ndarray(dtype=qd.f32, ndim=1)

    @qd.kernel
    def touch(t: Typed):
        t.x[0] = 1

    with pytest.raises(TypeError, match=r"argument 't\.x': expected dtype f32, but got f64"):
        touch(Typed(np.zeros(2, np.float64)))


def test_func_parameter_annotated_with_another_dataclass_is_an_error():
    @qd.func
    def wants_joints(j: Joints):
        return j.damping[0]

    @qd.kernel
    def k(state: State) -> qd.f32:
        return wants_joints(state)

    with pytest.raises(qd.QuadrantsTypeError, match="annotated with dataclass Joints, but got"):
        k(make_state(2))


def test_member_that_does_not_exist():
    @qd.kernel
    def k(j: Joints) -> qd.f32:
        return j.mass[0]

    with pytest.raises(qd.QuadrantsTypeError, match=r"has no member 'mass' \(its members: stiffness, damping\)"):
        k(make_state(2).joints)


def test_data_oriented_member_type_says_how_to_pass_it():
    @qd.data_oriented
    class Solver:
        pass

    @DATA
    class WithSolver:
        solver: Solver

    @qd.kernel
    def k(w: WithSolver):
        pass

    with pytest.raises(qd.QuadrantsTypeError, match="a @qd.data_oriented class.*annotate the member qd.template()"):
        k(WithSolver(Solver()))


def test_first_call_while_tracing_fake_tensors_reads_nothing():
    torch = pytest.importorskip("torch")
    from torch._subclasses.fake_tensor import FakeTensorMode

    from quadrants.interop.torch_ops import _kernels_skipped

    @DATA
    class Pair:
        x: V
        out: V

    @qd.kernel
    def double(p: Pair, k: qd.template()):
        for i in range(p.x.shape[0]):
            p.out[i] = p.x[i] * k

    import warnings

    with FakeTensorMode(), _kernels_skipped(), warnings.catch_warnings():
        warnings.simplefilter("error")  # reading a FakeTensor's data pointer warns
        assert double(Pair(torch.empty(4), torch.empty(4)), 2) is None
    x = torch.arange(4, dtype=torch.float32)
    pair = Pair(x, torch.zeros(4))
    double(pair, 2)
    np.testing.assert_array_equal(pair.out.numpy(), [0, 2, 4, 6])


def test_equal_frozen_dataclass_keys_share_one_entry_and_one_subkey(compiles):
    # A frozen dataclass argument's part of the key is one SubKey per distinct content: equal instances share it
    # (one entry, no recompile), different template members do not, and the SubKey goes with its last holder.
    import gc
    import weakref

    from quadrants.kernels.dispatch import SubKey

    Config, fill = scaled_fill()
    out = np.zeros(3, np.int32)
    first, second, other = Config(3, out), Config(3, np.zeros(3, np.int32)), Config(4, out)
    fill(first)
    subkey = fill._qd_kernel._last_launch_key[0]
    fill(second)
    assert fill._qd_kernel._last_launch_key[0] is subkey and type(subkey) is SubKey
    fill(other)
    assert fill._qd_kernel._last_launch_key[0] is not subkey
    np.testing.assert_array_equal(out, [0, 4, 8])
    assert len(compiles) == 2
    gone = weakref.ref(subkey)
    del first, second, other, subkey, fill
    gc.collect()
    assert gone() is None


def test_a_wide_frozen_dataclass_call_hashes_its_key_once_per_instance():
    # Genesis' members are qd.Tensor (each selects the compiled kernel by its kind), so a call's key has a part per
    # member. The key holds the dataclass's SubKey, whose hash is its identity: hashing it does not walk the thirty
    # members' keys (Python's tuples keep no hash, so a tuple key cost microseconds on every launch).
    WideTensors = dataclasses.make_dataclass("WideTensors", [(name, qd.Tensor) for name in WIDE_MEMBERS], frozen=True)
    wide = WideTensors(*[np.full(5, k, np.float32) for k in range(len(WIDE_MEMBERS))])

    @qd.kernel
    def touch(w: WideTensors, out: qd.types.ndarray()):
        for i in range(out.shape[0]):
            out[i] = w.m0[i] + w.m29[i]

    out = np.ones(5, np.float32)
    touch(wide, out)
    np.testing.assert_array_equal(out, np.full(5, 29))
    (subkey,) = touch._qd_kernel._last_launch_key
    assert type(subkey).__name__ == "SubKey" and len(subkey.parts) == len(WIDE_MEMBERS)
    assert hash(subkey) == object.__hash__(subkey)
