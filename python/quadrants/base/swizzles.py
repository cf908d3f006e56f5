# python/quadrants/base/swizzles.py: vector swizzles (v.x, v.xy, v.bgr, v.stp), shared by kernels and Python scope.
#
# A swizzle's letters come from one group: xyzw, rgba or stpq; reads may repeat a component (v.xxz), writes may
# not (v.xx = ... would name one component twice). Upstream's words come first in the errors, which its tests
# match. No imports: matrix.py loads this before the lang package exists.
GROUPS = ("xyzw", "rgba", "stpq")


def swizzle_indices(name):
    """The components a swizzle such as 'x', 'xy' or 'rgba' names, or None when name is not one."""
    if not 1 <= len(name) <= 4:
        return None
    for group in GROUPS:
        if all(c in group for c in name):
            return [group.index(c) for c in name]
    return None


def out_of_range_message(name, n):
    """Upstream's words, then ours, for a swizzle of an n-vector that names a component past its end."""
    group = next(g for g in GROUPS if name[0] in g)
    have = tuple(group[:n])
    return (f"vec{n} only has attributes={have}, got={tuple(name)}: a {n}-vector has components "
            f"{', '.join(have)}, but got '.{name}'.")


def length_message(name, given):
    return (f"value len does not match the swizzle pattern={name}: swizzle '{name}' takes {len(name)} values, "
            f"but got {given}.")


def patterns(group, required_length=4):
    """Every swizzle of the letters of `group` ('xyzw') up to required_length long, shortest first: x, y, ...,
    xx, xy, ... (upstream's _generate_swizzle_patterns; swizzle_indices accepts each of them)."""
    import itertools

    return ["".join(letters) for k in range(1, required_length + 1) for letters in itertools.product(group, repeat=k)]
