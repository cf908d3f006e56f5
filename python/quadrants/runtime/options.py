# python/quadrants/runtime/options.py: every option upstream's qd.init() accepts, what each means here, and qd.cfg.
#
# Upstream takes its options from its C++ CompileConfig, a few Python-side settings and init()'s own
# parameters (quadrants/program/compile_config.h, lang/misc.py). Each is listed below once, with its
# upstream default and what quadrants does with it:
#   APPLIED  _runtime.init() implements it.
#   IGNORED  it means nothing for this compiler; a value other than upstream's default warns once per
#            process, naming the option and why (the default asks for nothing that could be missed).
# Any other keyword is a TypeError naming it. Options can also come from the environment, as upstream:
# QD_<NAME> (QD_DEBUG=1, QD_RANDOM_SEED=7, ...) when the keyword is not given.
import difflib
import numbers
import os
import warnings

APPLIED = "applied"
IGNORED = "ignored"

_COMPILER = "quadrants has its own compiler pipeline and no such setting"
_LLVM = ("quadrants does not use LLVM; qd.init(print_ir=True) prints its IR after each pass, and QD_DUMP_IR=1 "
         "writes it to files in debug_dump_path")
_DEVICE_MEMORY = "quadrants allocates device memory per array, on demand, with no preallocated pool"
_NO_BACKEND = "quadrants has no mesh, quantized-type, Metal or Vulkan support"
_DEBUGGER = "quadrants never attaches a debugger or rewrites tracebacks"

# name: (default, status, why it is ignored). The defaults are upstream's, except fast_math's. Order:
# init()'s parameters, upstream's Python-side settings, then CompileConfig in header order.
OPTIONS = {
    "_test_mode": (False, APPLIED, None),  # init() returns SubmoduleOptions, as upstream; it starts the runtime too
    "print_non_pure": (False, APPLIED, None),  # kernels/definition.py prints "[NOT_PURE] ..." per compile
    "src_ll_cache": (True, APPLIED, None),  # upstream's fast-cache rule for fastcache kernels (kernels/fastcache_key.py)
    "log_level": ("info", APPLIED, None),
    "gdb_trigger": (False, IGNORED, _DEBUGGER),
    "short_circuit_operators": (True, IGNORED, "`and`/`or` in kernels always follow the kernel frontend's rules"),
    "print_full_traceback": (False, IGNORED, _DEBUGGER),
    "unrolling_limit": (32, IGNORED, "qd.static loops unroll without a limit"),
    "debug": (False, APPLIED, None),
    "cfg_optimization": (True, IGNORED, _COMPILER),
    "check_out_of_bound": (False, APPLIED, None),
    "opt_level": (1, IGNORED, _COMPILER),
    "raise_on_templated_floats": (False, APPLIED, None),  # frontend/templated_floats.py
    "print_preprocessed_ir": (False, IGNORED, _LLVM),
    "print_ir": (False, APPLIED, None),
    "print_accessor_ir": (False, IGNORED, _LLVM),
    "print_ir_dbg_info": (False, IGNORED, _LLVM),
    "simplify_before_lower_access": (True, IGNORED, _COMPILER),
    "lower_access": (True, IGNORED, _COMPILER),
    "simplify_after_lower_access": (True, IGNORED, _COMPILER),
    "move_loop_invariant_outside_if": (False, IGNORED, _COMPILER),
    "cache_loop_invariant_global_vars": (True, IGNORED, _COMPILER),
    "demote_dense_struct_fors": (True, IGNORED, _COMPILER),
    "advanced_optimization": (True, IGNORED, _COMPILER),
    "use_llvm": (True, IGNORED, _LLVM),
    "verbose_kernel_launches": (False, IGNORED, "kernel launches are not traced"),
    "kernel_profiler": (False, APPLIED, None),
    "timeline": (False, IGNORED, "there is no timeline recorder"),
    "verbose": (True, IGNORED, "quadrants logs through Python's logging; use log_level"),
    "fast_math": (False, APPLIED, None),  # upstream defaults to True; quadrants keeps IEEE semantics unless asked
    "flatten_if": (False, IGNORED, _COMPILER),
    "make_thread_local": (True, IGNORED, _COMPILER),
    "make_block_local": (True, IGNORED, _COMPILER),
    "detect_read_only": (True, IGNORED, _COMPILER),
    "real_matrix_scalarize": (True, IGNORED, _COMPILER),
    "force_scalarize_matrix": (False, IGNORED, _COMPILER),
    "half2_vectorization": (False, IGNORED, _COMPILER),
    "make_cpu_multithreading_loop": (True, IGNORED, _COMPILER),
    "default_cpu_block_dim": (32, IGNORED, "CPU loops are split by the thread pool; use qd.loop_config"),
    "cpu_block_dim_adaptive": (True, IGNORED, "CPU loops are split by the thread pool; use qd.loop_config"),
    "default_gpu_block_dim": (128, IGNORED, "CUDA grids are sized by the occupancy API; use qd.loop_config"),
    "gpu_max_reg": (0, IGNORED, _COMPILER),
    # False: reverse mode rejects a range() loop nested in another loop, as upstream ("Cannot use non static range
    # in Backwards mode", frontend/loops.py); True: such loops keep the values they carry on AD stacks.
    "ad_stack_experimental_enabled": (False, APPLIED, None),
    # Slots per AD stack (one value per iteration of a serial loop's carried local); 0: 1024 (ir.h's
    # kDefaultAdStackSize). Upstream's 0 sizes stacks per launch; here a stack is a fixed-size local array.
    "ad_stack_size": (0, APPLIED, None),
    "ad_stack_sparse_threshold_bytes": (100 * 1024 * 1024, IGNORED, "quadrants' AD stacks are per-thread local arrays of a fixed capacity (qd.init(ad_stack_size=N))"),
    "saturating_grid_dim": (0, IGNORED, "CUDA grids are sized by the occupancy API"),
    "max_block_dim": (0, IGNORED, "CUDA grids are sized by the occupancy API; use qd.loop_config"),
    "cpu_max_num_threads": (None, APPLIED, None),
    "random_seed": (0, APPLIED, None),
    "print_struct_llvm_ir": (False, IGNORED, _LLVM),
    "print_kernel_llvm_ir": (False, IGNORED, _LLVM),
    "print_kernel_llvm_ir_optimized": (False, IGNORED, _LLVM),
    "print_kernel_asm": (False, IGNORED, _LLVM),
    "print_kernel_amdgcn": (False, IGNORED, _LLVM),
    "debug_dump_path": ("/tmp/ir/", APPLIED, None),  # where QD_DUMP_IR=1 writes the per-pass IR files
    "device_memory_GB": (1.0, IGNORED, _DEVICE_MEMORY),
    "device_memory_fraction": (0.0, IGNORED, _DEVICE_MEMORY),
    "quant_opt_store_fusion": (True, IGNORED, _NO_BACKEND),
    "quant_opt_atomic_demotion": (True, IGNORED, _NO_BACKEND),
    "make_mesh_block_local": (True, IGNORED, _NO_BACKEND),
    "optimize_mesh_reordered_mapping": (True, IGNORED, _NO_BACKEND),
    "mesh_localize_to_end_mapping": (True, IGNORED, _NO_BACKEND),
    "mesh_localize_from_end_mapping": (False, IGNORED, _NO_BACKEND),
    "mesh_localize_all_attr_mappings": (False, IGNORED, _NO_BACKEND),
    "demote_no_access_mesh_fors": (True, IGNORED, _NO_BACKEND),
    "experimental_auto_mesh_local": (False, IGNORED, _NO_BACKEND),
    "auto_mesh_local_default_occupacy": (4, IGNORED, _NO_BACKEND),
    "offline_cache": (True, APPLIED, None),
    "offline_cache_file_path": ("", APPLIED, None),  # applied by _cache.apply_cache_path
    "offline_cache_cleaning_policy": ("lru", APPLIED, None),  # applied by _cache.apply_init_options
    "offline_cache_max_size_of_files": (100 * 1024 * 1024, APPLIED, None),
    "offline_cache_cleaning_factor": (0.25, APPLIED, None),
    "num_compile_threads": (4, IGNORED, "kernels compile one at a time, when first called"),
    "vk_api_version": ("", IGNORED, _NO_BACKEND),
    "cuda_stack_limit": (0, APPLIED, None),  # bytes of stack per CUDA thread; 0: the driver's default
    "external_metal_command_queue": (0, IGNORED, _NO_BACKEND),
    "external_metal_command_queue_is_torch_queue": (False, IGNORED, _NO_BACKEND),
}

_warned = set()  # options already warned about in this process


class UnknownOptionError(TypeError, KeyError):
    """An option qd.init() does not know: a TypeError as for any bad keyword, and the KeyError upstream raises."""

    def __str__(self):
        return str(self.args[0])  # KeyError would show the message in quotes


def check_known(kwargs):
    """Raises UnknownOptionError for a keyword that is no upstream option."""
    if "default_up" in kwargs:
        raise UnknownOptionError(
            "qd.init(default_up=...) cannot be set: it is always the unsigned type of default_ip. "
            "Set default_ip instead."
        )
    for name in kwargs:
        if name not in OPTIONS and name != "device_id":
            close = difflib.get_close_matches(name, list(OPTIONS), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise UnknownOptionError(f"qd.init() got an unexpected keyword argument {name!r}.{hint}")


def resolve(kwargs):
    """Every option's value: the keyword, else QD_<NAME> from the environment, else upstream's default.

    Checks each given value's type, and warns once for an ignored option set to a non-default value.
    """
    check_known(kwargs)
    values = {}
    for name, (default, status, reason) in OPTIONS.items():
        if name in kwargs:
            value = _checked(name, kwargs[name], default)
        else:
            value = _from_environment(name, default)
        if status == IGNORED and value != default:
            warn_once(name, f"qd.init({name}={value!r}) is ignored: {reason}.")
        values[name] = value
    return values


def warn_once(name, message, stacklevel=4):
    if name in _warned:
        return
    _warned.add(name)
    warnings.warn(message, UserWarning, stacklevel=stacklevel)


def _kind(default):
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, str):
        return "str"
    return None


def _checked(name, value, default, what=None):
    kind = _kind(default)
    if kind == "bool" and value in (0, 1) and not isinstance(value, float):
        return bool(value)
    if kind == "int" and isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if kind == "float" and isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if kind == "str" and isinstance(value, str):
        return value
    if kind is None:
        return value
    raise TypeError(f"{what or f'qd.init({name}=...)'} expects a {kind}, but got {value!r} ({type(value).__name__}).")


def _from_environment(name, default):
    variable = "QD_" + name.upper()
    text = os.environ.get(variable, "")
    if not text:
        return default
    kind = _kind(default) or "int"
    try:
        if kind == "bool":
            return bool(int(text))
        return {"int": int, "float": float, "str": str}[kind](text)
    except ValueError:
        expected = "0 or 1" if kind == "bool" else f"a {kind}"
        raise ValueError(
            f"Environment variable {variable}={text!r} must be {expected} for qd.init({name}=...).") from None


class CompileConfig:
    """qd.cfg / qd.lang.impl.current_cfg(): every upstream option, as this qd.init() applied it.

    Applied options hold their effective value (check_out_of_bound is True under debug, as upstream; the
    offline_cache_* ones the disk cache's cap in force); always-on ones hold True; ignored ones hold what was
    given. As upstream's, options can be written after qd.init() (`qd.cfg.fast_math = True`): the value is
    checked as qd.init() checks it and holds for kernels compiled afterwards (runtime/option_writes.py says what
    each write does). `_revision` counts the writes, so caches keyed on the options see a change.
    """

    def __init__(self, values, on_write=None):
        object.__setattr__(self, "_values", dict(values))
        object.__setattr__(self, "_on_write", on_write)  # (name, checked value) -> the value to show
        object.__setattr__(self, "_revision", 0)

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_values", "_on_write", "_revision"):  # copy and pickle probe these
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"qd.cfg has no option {name!r}.") from None

    def __setattr__(self, name, value):
        if name not in self._values:
            close = difflib.get_close_matches(name, list(self._values), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise AttributeError(f"qd.cfg has no option {name!r}, so it cannot be set.{hint}")
        if name in _SET_AT_INIT_ONLY:
            raise AttributeError(f"qd.cfg.{name} cannot be set after qd.init(): {_SET_AT_INIT_ONLY[name]}.")
        entry = OPTIONS.get(name)
        if entry is not None:
            value = _checked(name, value, entry[0], f"qd.cfg.{name} = ...")
        if self._on_write is not None:
            value = self._on_write(name, value)
        self._values[name] = value
        object.__setattr__(self, "_revision", self._revision + 1)
        if entry is not None and entry[1] == IGNORED and value != entry[0]:
            warn_once(name, f"qd.cfg.{name} = {value!r} is ignored: {entry[2]}.", stacklevel=3)

    def __dir__(self):
        return sorted(self._values)

    def __repr__(self):
        shown = ", ".join(f"{k}={self._values[k]!r}" for k in ("arch", "debug", "default_fp", "default_ip"))
        return f"<qd.cfg {shown}, ...>"


class SubmoduleOptions:
    """What qd.init(_test_mode=True) returns, as upstream's: the options that belong to other parts of the
    runtime than the compiler (the logger, the debugger hook, the frontend), as this qd.init() resolved them."""

    NAMES = ("log_level", "gdb_trigger", "short_circuit_operators", "print_full_traceback", "unrolling_limit")

    def __init__(self, values):
        for name in self.NAMES:
            setattr(self, name, values[name])

    def __repr__(self):
        return "SubmoduleOptions(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.NAMES) + ")"


# Names qd.cfg shows that only qd.init() sets, and why.
_SET_AT_INIT_ONLY = {
    "arch": "the backend is chosen when the runtime starts; call qd.init(arch=...) again",
    "default_up": "it is always the unsigned type of default_ip; set qd.cfg.default_ip instead",
    "_test_mode": "it only changes what qd.init() itself does",
}
