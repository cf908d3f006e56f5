# python/quadrants/backends/dtypes.py: standardized string dtypes and their per-library tables.
"""String dtypes ('float32', ...) and their mapping to each library's dtype objects."""

# The seed's dtypes, then the ones added for image and half-precision data.
STANDARD_DTYPE_NAMES = (
    "int8", "int16", "int32", "int64",
    "float32", "float64", "complex64", "complex128",
    "bool", "uint8", "float16",
)

# Exactly the seed's table: dtype of an array -> dtype of its complex counterpart (not invertible).
COMPLEX_DTYPES = {
    "int8": None,
    "int16": None,
    "int32": "complex64",
    "float32": "complex64",
    "complex64": "complex64",
    "int64": "complex128",
    "float64": "complex128",
    "complex128": "complex128",
}


def str_to_lib_dtypes(lib_name, lib):
    """The str -> library dtype table; None maps as in the seed (lib.dtype(None), or None for torch)."""
    if lib_name == "torch":
        table = {name: getattr(lib, name) for name in STANDARD_DTYPE_NAMES}
        table[None] = None
    else:
        table = {name: lib.dtype(name) for name in STANDARD_DTYPE_NAMES}
        table[None] = lib.dtype(None)
    return table


def lib_to_str_dtypes(str_to_lib):
    """Inverse of str_to_lib_dtypes; numpy's dtype(None) is float64, so the named entry wins."""
    inverse = {lib_dtype: name for name, lib_dtype in str_to_lib.items() if name is not None}
    inverse.setdefault(str_to_lib[None], None)
    return inverse


def dtype_name(array):
    """The standardized name of an array's dtype ('float64', 'bool', ...), for any of the libraries."""
    return str(array.dtype).removeprefix("torch.")
