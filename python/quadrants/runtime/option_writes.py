# python/quadrants/runtime/option_writes.py: what `qd.cfg.<name> = value` after qd.init() does.
#
# Upstream's qd.cfg is its C++ CompileConfig, which programs may write after qd.init(): each compile reads it, so
# a written option holds for kernels compiled afterwards (kernels already compiled keep their code, as upstream's).
# Here the options a translation reads live on runtime/init.py's Config as well as on qd.cfg, so a write is
# mirrored there; options the runtime applies once (the logger, the profiler, the thread pool, the disk cache) are
# applied again. Everything else is read from qd.cfg when it is needed, so storing it is enough. The translation
# cache keys on qd.cfg's revision (kernels/translation_cache.py), so a changed option never reuses a translation
# made under the old value; the compiled-library cache keys on the IR, which spells debug/fast_math/bounds out.
from quadrants.base import dtypes as _dtypes, log as _logging
from quadrants.runtime import _core, cache as _cache, options as _options

_driver_stack_limits = {}  # device -> the stack size its context had before any qd.init changed it


def apply_cuda_stack_limit(requested, device_id):
    """Deep @qd.real_func recursion needs more GPU stack than the driver's default; 0 restores that default."""
    default = _driver_stack_limits.setdefault(device_id, _core.cuda_stack_limit(device_id))
    wanted = requested or default
    if _core.cuda_stack_limit(device_id) != wanted:
        _core.cuda_set_stack_limit(wanted, device_id)


def apply(config, name, value):
    """Makes qd.cfg.<name> = value take effect for `config` (runtime/init.py's Config); returns what qd.cfg shows."""
    handler = _HANDLERS.get(name)
    return value if handler is None else handler(config, value)


def _debug(config, value):
    config.debug = value
    config.check_out_of_bound = value or bool(config.options.check_out_of_bound)
    return value


def _check_out_of_bound(config, value):
    config.check_out_of_bound = config.debug or value
    return value


def _fast_math(config, value):
    config.fast_math = value
    return value


def _random_seed(config, value):
    if getattr(config, "_random_state", None) is not None and value != config.random_seed:
        _options.warn_once("random_seed:write", (
            f"qd.cfg.random_seed = {value!r} takes effect at the next qd.init(): qd.random() was already seeded "
            f"with {config.random_seed!r} in this one."), stacklevel=5)
        return value
    config.random_seed = value  # random_numbers.random_state() seeds the generator on first use
    return value


def _default_type(what, choices):
    def write(config, value):
        try:
            dtype = _dtypes.to_dtype(value)
        except TypeError:
            dtype = None
        if dtype not in choices:
            raise ValueError(f"qd.cfg.{what} = ... expects one of {', '.join(map(repr, choices))}, but got {value!r}.")
        setattr(config, what, dtype)
        if what == "default_ip":
            config.options._values["default_up"] = _dtypes.u64 if dtype.numpy.itemsize == 8 else _dtypes.u32
        return dtype

    return write


def _print_ir(config, value):
    _core.set_print_ir(value)
    return value


def dump_path_text(value, what):
    """debug_dump_path, a str (options.py checked the type), naming the directory QD_DUMP_IR=1 writes to."""
    if not value:
        raise ValueError(f"{what} expects the directory for QD_DUMP_IR=1's IR files, but got an empty string.")
    return value


def _debug_dump_path(config, value):
    _core.set_ir_dump_path(dump_path_text(value, "qd.cfg.debug_dump_path = ..."))
    return value


def _kernel_profiler(config, value):
    _core.set_kernel_profiling(value)
    return value


def _log_level(config, value):
    _logging.set_logging_level(value)  # raises for a name that is no level
    return value


def _cpu_max_num_threads(config, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"qd.cfg.cpu_max_num_threads = ... expects a non-negative int (0: one thread per core), "
                         f"but got {value!r}.")
    _core.set_num_threads(value)
    config.cpu_max_num_threads = value
    return value or _core.num_threads()


def _cuda_stack_limit(config, value):
    if value < 0:
        raise ValueError(f"qd.cfg.cuda_stack_limit = ... expects the bytes of stack per CUDA thread as an int (0: the "
                         f"driver's default), but got {value!r}.")
    if config.is_cuda:
        apply_cuda_stack_limit(value, config.device_id)
    return value


def _reopen_records(config, changes):
    """The disk cache's options changed: start the kernel records' session again with all of them."""
    values = dict(config.options._values, **changes)
    _cache.open_records(values, values)


def _offline_cache(config, value):
    _core.set_disk_cache_enabled(value)
    _reopen_records(config, {"offline_cache": value})
    return value


def _offline_cache_file_path(config, value):
    _cache.apply_cache_path(value)
    _reopen_records(config, {"offline_cache_file_path": value})
    return value


def _cache_cap(name):
    def write(config, value):
        values = dict(config.options._values, **{name: value})
        in_force = _cache.apply_init_options(values, {n: values[n] for n in _cache.CAP_OPTIONS})
        values.update(in_force)
        _cache.open_records(values, in_force)
        return in_force[name]

    return write


_HANDLERS = {
    "debug": _debug,
    "check_out_of_bound": _check_out_of_bound,
    "fast_math": _fast_math,
    "random_seed": _random_seed,
    "default_fp": _default_type("default_fp", (_dtypes.f16, _dtypes.f32, _dtypes.f64)),
    # Any integer type, as get_runtime().default_ip takes (upstream's tests set u32 and u64 there); qd.init() keeps
    # to i32/i64.
    "default_ip": _default_type("default_ip", (_dtypes.i32, _dtypes.i64, _dtypes.u32, _dtypes.u64, _dtypes.i8,
                                               _dtypes.i16, _dtypes.u8, _dtypes.u16)),
    "print_ir": _print_ir,
    "debug_dump_path": _debug_dump_path,
    "kernel_profiler": _kernel_profiler,
    "log_level": _log_level,
    "cpu_max_num_threads": _cpu_max_num_threads,
    "cuda_stack_limit": _cuda_stack_limit,
    "offline_cache": _offline_cache,
    "offline_cache_file_path": _offline_cache_file_path,
    **{name: _cache_cap(name) for name in _cache.CAP_OPTIONS},
}
