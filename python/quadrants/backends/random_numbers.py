# python/quadrants/backends/random_numbers.py: standardized random arrays (rand, randn) with seeds or generators.
"""rand and randn with numpy.random.rand's shape arguments, reproducible through `seed` or `generator`.

A seed makes results repeatable on one backend; the libraries' generators differ, so the same seed
gives different numbers on numpy, CuPy and torch.
"""

_RANDOM_DTYPES = ("float32", "float64")


def _shape(function_name, shape):
    """rand(3, 4) and rand((3, 4)) both mean shape (3, 4)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if not all(isinstance(size, int) and size >= 0 for size in shape):
        raise ValueError(f"{function_name}() expected non-negative int sizes as its shape, got {shape!r}.")
    return tuple(shape)


def _generator_class(ctx):
    return ctx.lib.Generator if ctx.name == "torch" else ctx.lib.random.Generator


def _generator(ctx, function_name, seed, generator):
    """The generator to draw from: the given one, a new one seeded with seed, or a fresh one."""
    if generator is not None:
        if seed is not None:
            raise ValueError(f"{function_name}() takes a seed or a generator, not both; got seed={seed!r} too.")
        expected = _generator_class(ctx)
        if not isinstance(generator, expected):
            raise TypeError(
                f"{function_name}() expected generator to be a {expected.__module__}.{expected.__name__}, "
                f"got {type(generator).__name__}."
            )
        return generator
    if ctx.name == "torch":
        fresh = ctx.lib.Generator(device=ctx.native_device)
        if seed is None:
            fresh.seed()
        else:
            fresh.manual_seed(seed)
        return fresh
    return ctx.lib.random.default_rng(seed)


def _draw(ctx, function_name, shape, dtype, seed, generator):
    shape = _shape(function_name, shape)
    dtype = "float64" if dtype is None else dtype
    if dtype not in _RANDOM_DTYPES:
        raise ValueError(f"{function_name}() expected dtype 'float32', 'float64' or None, got {dtype!r}.")
    lib_dtype = ctx.lib_dtype(function_name, dtype, "float64")
    source = _generator(ctx, function_name, seed, generator)
    if ctx.name == "torch":
        draw = ctx.lib.rand if function_name == "rand" else ctx.lib.randn
        return draw(shape, generator=source, dtype=lib_dtype, device=ctx.native_device)
    if function_name == "rand":
        return source.random(shape, dtype=lib_dtype)
    return source.standard_normal(shape, dtype=lib_dtype)


def _maps_to(ctx, torch_name, numpy_method):
    if ctx.name == "torch":
        return f"torch.{torch_name}(shape, dtype=dtype, generator=generator, device=device)"
    return f"{{lib}}.random.default_rng(seed).{numpy_method}(shape, dtype=dtype), or generator.{numpy_method}"


def build(ctx):
    """The random functions of the backend described by `ctx`, by name."""

    @ctx.standard(_maps_to(ctx, "rand", "random"))
    def rand(*shape, dtype=None, seed=None, generator=None):
        """Uniform samples in [0, 1) of the given shape ('float64' by default), as numpy.random.rand."""
        return _draw(ctx, "rand", shape, dtype, seed, generator)

    @ctx.standard(_maps_to(ctx, "randn", "standard_normal"))
    def randn(*shape, dtype=None, seed=None, generator=None):
        """Standard normal samples of the given shape ('float64' by default), as numpy.random.randn."""
        return _draw(ctx, "randn", shape, dtype, seed, generator)

    return {"rand": rand, "randn": randn}
