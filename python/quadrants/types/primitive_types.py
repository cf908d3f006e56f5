# python/quadrants/types/primitive_types.py: upstream's qd.types.primitive_types: the dtypes and their sets.
from quadrants.base.dtypes import (
    all_types,
    f16,
    f32,
    f64,
    float16,
    float32,
    float64,
    i8,
    i16,
    i32,
    i64,
    int8,
    int16,
    int32,
    int64,
    integer_types,
    real_types,
    u1,
    u8,
    u16,
    u32,
    u64,
    uint1,
    uint8,
    uint16,
    uint32,
    uint64,
)

# id() sets, as upstream keeps them for fast membership tests on hot paths.
real_type_ids = {id(t) for t in real_types}
integer_type_ids = {id(t) for t in integer_types}
type_ids = {id(t) for t in all_types}

__all__ = [
    "float16", "f16", "float32", "f32", "float64", "f64",
    "int8", "i8", "int16", "i16", "int32", "i32", "int64", "i64",
    "uint1", "u1", "uint8", "u8", "uint16", "u16", "uint32", "u32", "uint64", "u64",
]
