# python/quadrants/frontend/random_numbers.py: qd.random() inside kernels, as a counter-based generator.
#
# Every number is (rand_bits KEY SEQ) (Philox4x32-10, docs/IR.md), a pure function; the state lives
# in ordinary IR locals, so passes and every backend need nothing special:
# - the keys: the serial code of each launch, and each run of each parallel loop, takes the next value of a
#   per-runtime u64 counter (a hidden 0-d field that qd.init seeds from random_seed) with one atomic in serial
#   code, so no two launches, loops or repeated runs of a loop (qd.graph.do_while) share numbers;
# - the stream: each parallel iteration mixes its loop indices into its loop's key, so the numbers
#   depend on the iteration, never on which thread runs it or how many there are;
# - the sequence: a local counter of the calls made so far in that iteration (or in the serial code).
# The same seed therefore gives the same numbers on any thread count.
import numpy as np

from quadrants.base import dtypes as _dtypes
from quadrants.data.field_factory import field
from quadrants.frontend.ir_builder import Expr, Stmt
from quadrants.runtime import init as _runtime

# Odd 64-bit multipliers (from the golden ratio and sqrt(2), 3, 5) that spread each loop index over
# the key; the serial stream uses the top bit alone, which no index combination of a loop reaches.
_INDEX_MULTIPLIERS = (0x9E3779B97F4A7C15, 0x6A09E667F3BCC909, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B)
_SERIAL_STREAM = 1 << 63


class RandomScope:
    """The generator state of one stream: its key and sequence locals, declared only once used.

    make_key(launch_key_name) gives the stream key's IR; it runs at declaration, so a kernel that
    never calls qd.random() never reads the launch key.
    """

    def __init__(self, key_name, seq_name, make_key):
        self.key_name = key_name
        self.seq_name = seq_name
        self.make_key = make_key
        self.used = False

    def declarations(self, launch_key_name):
        key = self.make_key(f"(var {launch_key_name})")
        return [f"decl {self.key_name} u64 {key}", f"decl {self.seq_name} u64 (const u64 0)"]


def random_state():
    """The 0-d u64 field whose next value each launch of a kernel calling qd.random() takes as its key.

    Created on first use after init, from random_seed through splitmix64, so the same seed gives the
    same numbers after every qd.init().
    """
    cfg = _runtime.config()
    state = getattr(cfg, "_random_state", None)
    if state is None:
        mask = (1 << 64) - 1
        z = (cfg.random_seed * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        state = field(_dtypes.u64, shape=())
        state[None] = z ^ (z >> 31)
        cfg._random_state = state
    return state


class RandomTranslator:
    """Mixed into the Translator: qd.random() calls and the state they need."""

    def random_launch_key(self):
        """The IR name of this launch's key, read once at the start of the kernel."""
        if self.random_key_name is None:
            self.random_key_name = self.names.fresh("_qd_random_key")
            self.random_key_text = self.random_key_draw()
        return self.random_key_name

    def random_key_draw(self):
        """IR taking the next key from the per-runtime counter."""
        state = self.global_array(random_state(), "_qd_random_state")
        return f"(atomic add {state.name} () () (const u64 1))"

    def open_random_scope(self, index_names):
        """A stream for one parallel iteration whose IR loop indices are index_names."""

        def make_key(key):
            for name, multiplier in zip(index_names, _INDEX_MULTIPLIERS * 2):
                key = f"(bin add {key} (bin mul (cast u64 (var {name})) (const u64 {multiplier})))"
            return key

        scope = RandomScope(self.names.fresh("_qd_random_stream"), self.names.fresh("_qd_random_seq"), make_key)
        self.random_scopes.append(scope)
        return scope

    def close_random_scope(self, scope, block):
        """block with the stream's locals declared first, when its body called qd.random(). Each run of the loop
        takes a key of its own, declared just before the loop in the enclosing serial code: two loops of a kernel,
        or a loop that qd.graph.do_while runs again, would otherwise repeat one another's numbers."""
        self.random_scopes.pop()
        if not scope.used:
            return block

        loop_key = self.names.fresh("_qd_random_loop_key")
        self.builder.emit(f"decl {loop_key} u64 {self.random_key_draw()}")
        return [Stmt(text) for text in scope.declarations(loop_key)] + block

    def serial_random_scope(self):
        if not self.random_scopes:
            self.random_scopes.append(RandomScope(self.names.fresh("_qd_random_stream"),
                                                  self.names.fresh("_qd_random_seq"),
                                                  lambda key: f"(bin add {key} (const u64 {_SERIAL_STREAM}))"))
        return self.random_scopes[0]

    def kernel_random_prelude(self):
        """The statements that start a kernel that calls qd.random(): the launch key, then the serial stream."""
        serial = self.random_scopes[0] if self.random_scopes else None
        serial_decls = serial.declarations(self.random_launch_key()) if serial is not None and serial.used else []
        if self.random_key_name is None:
            return []
        return [f"decl {self.random_key_name} u64 {self.random_key_text}"] + serial_decls

    def call_random(self, args, kwargs):
        dtype = kwargs.pop("dtype", None)
        if len(args) > 1 or kwargs or (args and dtype is not None):
            raise self.fail(f"qd.random() takes one optional argument, the dtype, but got {len(args)} positional "
                            f"and {sorted(kwargs) or 'no'} keyword arguments", kind="type")
        dtype = self.dtype_argument(args[0] if args else (dtype if dtype is not None else float))
        # Inside a @qd.real_func, random_scopes holds the stream its caller passes it (real_function_random.py).
        scope = self.random_scopes[-1] if self.parallel_depth else self.serial_random_scope()
        scope.used = True
        bits = self.names.fresh("_qd_random_bits")
        self.builder.emit(f"decl {bits} u64 (bin rand_bits (var {scope.key_name}) (var {scope.seq_name}))")
        self.builder.emit(f"assign {scope.seq_name} (bin add (var {scope.seq_name}) (const u64 1))")
        return Expr(_from_bits(f"(var {bits})", dtype))


    def call_randn(self, args, kwargs):
        """qd.randn(dtype=float): a standard normal value by the Box-Muller transform of two uniforms."""
        dtype = self.dtype_argument(args[0] if args else kwargs.pop("dtype", float))
        if len(args) > 1 or kwargs or not dtype.startswith("f"):
            raise self.fail(f"qd.randn() takes one optional argument, a float dtype, but got {len(args)} positional "
                            f"and {sorted(kwargs) or 'no'} keyword arguments of dtype {dtype}", kind="type")
        work = "f64" if dtype == "f64" else "f32"
        first = self.snapshot(self.call_random([work], {}))
        second = self.call_random([work], {})
        # 1 - u lies in (0, 1], so the log is finite.
        radius = self.ops.un("sqrt", self.ops.bin("mul", -2.0, self.ops.un("log", self.ops.bin("sub", 1.0, first))))
        value = self.ops.bin("mul", radius, self.ops.un("cos", self.ops.bin("mul", 2.0 * 3.141592653589793, second)))
        return self.ops.cast(dtype, value)


def _from_bits(bits, dtype):
    """IR for a value of dtype from 64 random bits: floats uniform in [0, 1), integers over their range."""
    if dtype == "f64":
        return f"(bin mul (cast f64 (bin shr {bits} (const u64 11))) (const f64 {2.0 ** -53!r}))"
    if dtype == "f32":
        return f"(bin mul (cast f32 (bin shr {bits} (const u64 40))) (const f32 {2.0 ** -24!r}))"
    if dtype == "f16":  # 11 bits, so that rounding to f16 can never reach 1.0
        return f"(cast f16 (bin mul (cast f32 (bin shr {bits} (const u64 53))) (const f32 {2.0 ** -11!r})))"
    if dtype == "u1":
        return f"(cast u1 (bin bit_and {bits} (const u64 1)))"
    return f"(cast {dtype} {bits})"


def python_random(dtype=float):
    """qd.random() in Python scope: numpy's generator, with the same ranges as in kernels."""
    name = _dtypes.to_dtype(dtype).name if dtype not in (float, int) else ("f64" if dtype is float else "i64")
    if name.startswith("f"):
        return float(_python_generator.random())
    if name == "u1":
        return bool(_python_generator.integers(2))
    info = np.iinfo(_dtypes.to_dtype(name).numpy)
    return int(_python_generator.integers(info.min, info.max, dtype=info.dtype, endpoint=True))


def python_randn(dtype=float):
    """qd.randn() in Python scope: numpy's standard normal."""
    return float(_python_generator.standard_normal())


_python_generator = np.random.default_rng()
