# The frontend's NameAllocator (frontend/ir_builder.py): the IR names it gives, and how much it probes for them.
import random

from quadrants.frontend import ir_builder
from quadrants.frontend.ir_builder import NameAllocator


def reference_fresh(used, base, reserved):
    """The allocator's contract written plainly: the base (a C++ keyword gets a trailing underscore), else the
    least `base_k` (k >= 1) not taken."""
    base = base + "_" if base in reserved else base
    name, k = base, 1
    while name in used:
        name = f"{base}_{k}"
        k += 1
    used.add(name)
    return name


def test_names_are_the_least_free_suffix_whatever_was_reserved_or_made_before():
    rng = random.Random(7)
    bases = ["t", "t_1", "t_2", "x", "x_3", "int", "int_", "i_b"]
    for _ in range(50):
        names, used = NameAllocator(), set()
        for _ in range(300):
            base = rng.choice(bases)
            if rng.random() < 0.2:  # reserved names (parameters) may look like generated ones
                reserved = f"{base}_{rng.randrange(1, 6)}"
                names.reserve(reserved)
                used.add(reserved)
            else:
                assert names.fresh(base) == reference_fresh(used, base, ir_builder._CPP_RESERVED)


class CountingSet(set):
    probes = 0

    def __contains__(self, item):
        CountingSet.probes += 1
        return super().__contains__(item)


def test_many_names_of_one_base_cost_a_few_probes_each():
    # Genesis' collision kernel inlines ~30,000 temporaries; probing from suffix 1 each time made the frontend
    # quadratic in them.
    names = NameAllocator()
    names._used = CountingSet()
    count = 5000
    made = [names.fresh("_t") for _ in range(count)]
    assert made[:3] == ["_t", "_t_1", "_t_2"] and made[-1] == f"_t_{count - 1}" and len(set(made)) == count
    assert CountingSet.probes <= 3 * count
