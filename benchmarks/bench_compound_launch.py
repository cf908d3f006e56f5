# benchmarks/bench_compound_launch.py: launch overhead of kernels taking dataclasses, data_oriented objects, templates.
"""Times back-to-back calls of tiny kernels (one element updated per array) from Python.

Rows: N qd.ndarray parameters passed directly (the floor the launcher sets), a template kernel, a
frozen dataclass of N qd.ndarray members (all read, or only one of 30 read) or of N qd.Tensor members (as
Genesis declares its data), and @qd.data_oriented
kernel methods reading an ndarray or a field member of `self`. Each row is the median over --reps
repetitions of the mean time per call of --calls calls; repetitions of all rows take turns.
Rows whose feature the imported quadrants lacks are left out, so the script also runs on older trees.

Usage: python benchmarks/bench_compound_launch.py [--reps N] [--calls N]
"""

import argparse
import functools
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

import quadrants as qd

MEMBERS = 30

_BASE_SOURCE = '''
import quadrants as qd


@qd.kernel
def direct_1(a0: qd.types.ndarray()):
    for i in range(1):
        a0[i] += 1.0


@qd.kernel
def direct_n({direct_params}):
    for i in range(1):
{direct_body}


@qd.kernel
def template_1(a0: qd.types.ndarray(), n: qd.template()):
    for i in range(n):
        a0[i] += 1.0
'''

_COMPOUND_SOURCE = '''
import dataclasses
import quadrants as qd


@dataclasses.dataclass(frozen=True)
class One:
    m0: qd.types.ndarray()


@dataclasses.dataclass(frozen=True)
class Many:
{members}


@qd.kernel
def struct_1(s: One):
    for i in range(1):
        s.m0[i] += 1.0


@qd.kernel
def struct_n(s: Many):
    for i in range(1):
{struct_body}


@qd.kernel
def struct_n_reads_1(s: Many):
    for i in range(1):
        s.m0[i] += 1.0


@dataclasses.dataclass(frozen=True)
class ManyTensors:
{tensor_members}


@qd.kernel
def tensors_n(s: ManyTensors):
    for i in range(1):
{struct_body}


@qd.data_oriented
class Sim:
    def __init__(self, make_ndarray, make_field):
        self.v = make_ndarray()
        self.f = make_field()

    @qd.kernel
    def step_ndarray(self):
        for i in range(1):
            self.v[i] += 1.0

    @qd.kernel
    def step_field(self):
        for i in range(1):
            self.f[i] += 1.0
'''


def load_module(name, text):
    """Imports `text` from a temporary file (kernels need their source in a file); None if it fails."""
    path = Path(tempfile.mkdtemp(prefix="qd_bench_")) / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - an older tree rejects dataclass parameters at decoration
        print(f"({name} unavailable: {type(exc).__name__}: {str(exc).splitlines()[0]})")
        return None
    return module


def load_kernels(n):
    """The kernels for n members: (direct and template kernels, compound kernels or None)."""
    base = load_module("base_kernels", _BASE_SOURCE.format(
        direct_params=", ".join(f"a{i}: qd.types.ndarray()" for i in range(n)),
        direct_body="\n".join(f"        a{i}[i] += 1.0" for i in range(n)),
    ))
    compound = load_module("compound_kernels", _COMPOUND_SOURCE.format(
        members="\n".join(f"    m{i}: qd.types.ndarray()" for i in range(n)),
        tensor_members="\n".join(f"    m{i}: qd.Tensor" for i in range(n)),
        struct_body="\n".join(f"        s.m{i}[i] += 1.0" for i in range(n)),
    ))
    return base, compound


def loop_seconds_per_call(call, calls):
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls


def interleaved_medians(cases, calls, reps):
    for _, call in cases:
        loop_seconds_per_call(call, calls)  # warm-up: compiles, caches
    samples = [[] for _ in cases]
    for _ in range(reps):
        for (_, call), times in zip(cases, samples):
            times.append(loop_seconds_per_call(call, calls))
    return [(label, statistics.median(times)) for (label, _), times in zip(cases, samples)]


def cases_for(base, module):
    arrays = [qd.ndarray(qd.f32, shape=4) for _ in range(MEMBERS)]
    cases = [
        ("1 ndarray parameter", functools.partial(base.direct_1, arrays[0])),
        (f"{MEMBERS} ndarray parameters", functools.partial(base.direct_n, *arrays)),
        ("1 ndarray + 1 template int", functools.partial(base.template_1, arrays[0], 1)),
    ]
    if module is not None:
        one = module.One(arrays[0])
        many = module.Many(*arrays)
        cases += [
            ("dataclass, 1 ndarray member", functools.partial(module.struct_1, one)),
            (f"dataclass, {MEMBERS} ndarray members, all read", functools.partial(module.struct_n, many)),
            (f"dataclass, {MEMBERS} ndarray members, 1 read", functools.partial(module.struct_n_reads_1, many)),
        ]
        if hasattr(module, "tensors_n"):  # Genesis' members: qd.Tensor wrappers of ndarrays
            tensors = module.ManyTensors(*[qd.Tensor(a) for a in arrays])
            cases.append((f"dataclass, {MEMBERS} qd.Tensor members, all read", functools.partial(module.tensors_n, tensors)))
        sim = module.Sim(lambda: qd.ndarray(qd.f32, shape=4), lambda: qd.field(qd.f32, shape=4))
        cases += [
            # A lambda, so each call also pays for looking up and binding the method, as user code does.
            ("data_oriented sim.step(), reads self.v (ndarray)", lambda: sim.step_ndarray()),
            ("data_oriented sim.step(), reads self.f (field)", lambda: sim.step_field()),
        ]
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    qd.init(arch=qd.cpu)
    base, compound = load_kernels(MEMBERS)
    rows = interleaved_medians(cases_for(base, compound), args.calls, args.reps)
    print("| call | median us/call |")
    print("| --- | ---: |")
    for label, seconds in rows:
        print(f"| {label} | {seconds * 1e6:.3f} |")
    qd.reset()


if __name__ == "__main__":
    main()
