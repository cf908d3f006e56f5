# scripts/mutation_survivors.py: why each generated mutant that every test covering its line lets through survives.
"""The survivors of scripts/mutation_check.py --generated --covering, explained one by one.

Keyed by mutant name (mutation_generate.py: file stem, line, kind and a digest of path, offset and edit). A
survivor the suite should have caught gets a test instead of an entry here; an entry says why no test can tell
the mutant from the code (an equivalent mutant) or why the difference is not one a user could meet. Survivors
that tests written after the run kill have no entry; docs/testing.md names those tests.
"""

EXPLAINED = {
    'checkpoint_scan:111:const:ac070ead': (
        'equivalent: _Scan.body() never reads its in_do_while parameter (dead parameter)'),
    'exprs:227:negate:606fa96d': (
        'equivalent: values with side effects (atomics, qd.random()) are statements whose results are locals '
        'already (test_or_of_a_side_effect_evaluates_it_once); a pure expression left unbound is computed '
        'twice, to the same value'),
    'ir_builder:160:const:3c63327e': (
        'equivalent: misses only a stop_grad head at offset 0 and wraps the load again; '
        'stop_grad(stop_grad(x)) is stop_grad(x)'),
    'random_numbers:53:arith:2f9cfa0c': (
        "equivalent under the contract: the seed's mixing stays a bijection of the 64-bit seed (same seed, "
        'same stream; different seeds, different streams); no document fixes which stream a seed names'),
    'random_numbers:54:arith:2a344590': (
        'equivalent under the contract: z ^ (z << 30) is as invertible as z ^ (z >> 30) (see '
        'random_numbers:53)'),
    'random_numbers:55:arith:c996dbf4': (
        'equivalent under the contract: z ^ (z << 27) is invertible (see random_numbers:53)'),
    'random_numbers:55:arith:af257bb9': (
        'equivalent under the contract: adding an odd constant is a bijection like multiplying by one (see '
        'random_numbers:53)'),
    'return_values:35:compare:92c63eae': (
        'equivalent: the is_plain_scalar property has no caller (dead code)'),
    'struct_values:406:const:2d398dc6': (
        'equivalent: only decides whether a struct assignment snapshots its members first; snapshotting a '
        'one-leaf struct is a harmless copy'),
    'tensor_params:43:negate:eb3e8dba': (
        'equivalent: _OTHER_TYPES is a memo of types that need no unwrapping; numbers take the same path '
        'either way, other types are just not memoized'),
    'real_functions:141:const:33f0330a': (
        "likely equivalent (not proven): a real function's locals get depth 1 instead of 0; depths are "
        'compared only with each other inside the function, whose loops are serial'),
    'translator:179:compare:c3bdf81a': (
        'likely equivalent (not proven): a 0-d numpy scalar then takes the numpy-number path instead of '
        '.item(), with the same value; 40 of 547 covering tests run'),
    'sparse_access:245:arith:e3c739cb': (
        "equivalent: the block-wise form's LoopSpace (flat) only names and binds the loop indices; "
        'index_names, loop_body and bind_loop_indices read its rank, steps and grouping, never its bounds, and '
        'it has no guard (the per-cell guard stays on the original space)'),
    'ad_rules:151:drop:9a782116': (
        "likely equivalent (not proven): the names collected only keep the AD pass's fresh names apart from "
        "the kernel's, and the AD pass's names carry their own prefix"),
    'check_names:134:drop:d5d0da8e': (
        'unreachable from Python: the frontend never emits an atomic on an array the kernel does not declare;'
        ' only IR built through the C++ API could (a tests/cpp IR test would pin it; not written)'),
    'check_names:150:drop:8f4a4def': (
        'unreachable from Python: AD stack operations are made by the autodiff pass on stacks it declares '
        'itself'),
    'check_names:203:drop:f6572beb': (
        'unreachable from Python: the frontend never calls a function it did not define; only IR built '
        'through the C++ API could (not written)'),
    'check_names:209:negate:874ac192': (
        'unreachable from Python: the frontend always assigns as many results as the function returns; only '
        'IR built through the C++ API could differ (not written)'),
    'const_eval:134:boolop:6ac37a2a': (
        "likely equivalent: after type inference a binary's operands share a type, except pow's integer "
        'exponent, whose Const also holds its value as a double, so folding gives the same number'),
    'forward_ad:172:boolop:ab470862': (
        'equivalent: check_no_atomic(e) applies the same condition (not local, array with a dual) to every '
        'atomic it finds, so calling it for more atomics finds nothing more'),
    'infer_types:318:const:757ec467': (
        "likely equivalent (not proven): (1 << 9n) - 1 still has the type's n*8 low bits all set, and the "
        'constant is rendered into a u8/u16/u32 context'),
    'infer_types:380:compare:41eac55c': (
        "likely equivalent (not proven): returns the old node only when an operand changed but the node's "
        "type was already the result's, which a node meets once typed, after which its operands no longer "
        'change'),
    'infer_types:404:compare:77b8e4d0': (
        'likely equivalent (not proven): as infer_types:380, for unary nodes'),
    'validate_access:54:compare:aa1bf74f': (
        'hard to reach: under Tape(validation=True) an index computed by a qd.simt shared-memory atomic would '
        'be evaluated twice (for other simt operations the mutant only leaves the access unchecked, which '
        'adds no assert); no test indexes a validated array with such a value'),
}
