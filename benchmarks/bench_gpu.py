# benchmarks/bench_gpu.py: the GPU rows: launch, triad, histogram, a sum and Mandelbrot, each beside its torch
# counterpart; the same file runs on Quadrants 1.3.3 (only APIs both have), and --compare sets the two side by side.
"""Runs on one CUDA device with torch's CUDA build; every quadrants kernel runs on torch's current stream
(Quadrants 1.3.3 launches on the legacy default stream, which torch's default stream is too, so the same events
bracket its kernels).

- launch: `y[i] = x[i] * x[i]` over 32 float32 elements on CUDA tensors (then on qd.ndarrays), called back
  to back, against `torch.mul(x, x, out=y)`: mean host time per call over a loop (the enqueue rate, what a
  training loop pays), the stream synchronized before and after the loop.
- triad: `a[i] = b[i] + s * c[i]` over 2^26 float32 (768 MiB moved), against `torch.add(b, c, alpha=s, out=a)`
  and a device-to-device copy (`a.copy_(b)`), as GB/s counting bytes read and written, timed by CUDA events.
- histogram: 2^24 int32 values into 256 bins through `bins[v[i]] += 1`, against `torch.bincount`.
- sum: `total[None] += x[i]` over 2^24 float32 into one element, against `torch.sum`.
- mandelbrot: 4096 x 4096 pixels, at most 256 iterations each (compute-bound), against the same iteration in
  eager torch (one masked update per iteration); at most 0.5% of the pixels, on the set's boundary, may differ.

Each time is the median of --reps timed runs after warm-ups; every result is checked against torch's.
Usage: python benchmarks/bench_gpu.py [--reps N] [--json FILE]
       python benchmarks/bench_gpu.py --compare OURS.json REFERENCE.json   # ours beside 1.3.3 and torch
"""

import argparse
import json
import statistics
import sys
import time

import torch

import quadrants as qd


@qd.kernel
def square(x: qd.types.ndarray(), y: qd.types.ndarray()):
    for i in range(32):
        y[i] = x[i] * x[i]


@qd.kernel
def triad(a: qd.types.ndarray(), b: qd.types.ndarray(), c: qd.types.ndarray(), s: qd.f32):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


@qd.kernel
def histogram(values: qd.types.ndarray(), bins: qd.types.ndarray()):
    for i in range(values.shape[0]):
        bins[values[i]] += 1


@qd.kernel
def total(x: qd.types.ndarray(), out: qd.types.ndarray()):
    for i in range(x.shape[0]):
        out[0] += x[i]


MANDEL_SIZE = 4096
MANDEL_ITERS = 256


@qd.kernel
def mandelbrot(image: qd.types.ndarray()):
    h, w = image.shape[0], image.shape[1]
    for i, j in qd.ndrange(h, w):
        cx = -2.0 + 2.5 * j / w
        cy = -1.25 + 2.5 * i / h
        x = 0.0
        y = 0.0
        n = 0
        while n < MANDEL_ITERS and x * x + y * y <= 4.0:
            next_x = x * x - y * y + cx
            y = 2.0 * x * y + cy
            x = next_x
            n += 1
        image[i, j] = n


def torch_mandelbrot(image):
    """The same iteration in eager torch: every pixel steps until it escapes or reaches MANDEL_ITERS."""
    h, w = image.shape
    dev = image.device
    cx = (-2.0 + 2.5 * torch.arange(w, device=dev, dtype=torch.float32) / w).expand(h, w)
    cy = (-1.25 + 2.5 * torch.arange(h, device=dev, dtype=torch.float32) / h)[:, None].expand(h, w)
    x, y = torch.zeros((h, w), device=dev), torch.zeros((h, w), device=dev)
    image.zero_()
    for _ in range(MANDEL_ITERS):
        inside = x * x + y * y <= 4.0
        x, y = torch.where(inside, x * x - y * y + cx, x), torch.where(inside, 2.0 * x * y + cy, y)
        image += inside


def event_median_ms(call, reps, warmups=3):
    """Median milliseconds of `call` on the current stream, by CUDA events around each run."""
    for _ in range(warmups):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def host_us_per_call(call, calls, reps):
    """Median over reps of the mean host microseconds per call of `calls` back-to-back calls."""
    for _ in range(calls):
        call()
    samples = []
    for _ in range(reps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


ROWS = []


def row(name, ours, theirs, theirs_name, unit):
    faster = theirs / ours if unit in ("us", "ms") else ours / theirs
    print(f"| {name} | {ours:.3f} {unit} | {theirs_name}: {theirs:.3f} {unit} | {faster:.2f}x |", flush=True)
    ROWS.append({"workload": name, "unit": unit, "quadrants": ours, "torch": theirs, "torch_name": theirs_name})


def compare(ours_path, ref_path):
    """Prints ours beside the reference (Quadrants 1.3.3) and torch, row by row, from two --json files."""
    with open(ours_path) as f:
        ours = json.load(f)
    with open(ref_path) as f:
        ref = json.load(f)
    ref_rows = {(r["workload"], r["torch_name"]): r for r in ref["rows"]}
    print(f"ours: {ours['quadrants']}; reference: {ref['quadrants']}; {ours['device']}, torch {ours['torch']}")
    print("| workload | ours | 1.3.3 | torch (ours' run) | ours vs 1.3.3 | ours vs torch |")
    print("|---|---|---|---|---|---|")
    for r in ours["rows"]:
        other = ref_rows.get((r["workload"], r["torch_name"]))
        unit = r["unit"]

        def speedup(a, b):  # above 1: the first is faster
            return b / a if unit in ("us", "ms") else a / b

        ref_cell = f"{other['quadrants']:.3f} {unit}" if other else "no figure"
        vs_ref = f"{speedup(r['quadrants'], other['quadrants']):.2f}x" if other else "-"
        print(f"| {r['workload']} | {r['quadrants']:.3f} {unit} | {ref_cell} | {r['torch_name']}: "
              f"{r['torch']:.3f} {unit} | {vs_ref} | {speedup(r['quadrants'], r['torch']):.2f}x |")
    missing = [r["workload"] for r in ref["rows"] if (r["workload"], r["torch_name"]) not in
               {(o["workload"], o["torch_name"]) for o in ours["rows"]}]
    if missing:
        print(f"only in the reference's run: {missing}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--compare", nargs=2, metavar=("OURS", "REFERENCE"), help="print two --json files side by side")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    try:
        run(args)
    finally:  # the rows measured before a failure still count
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"quadrants": f"{getattr(qd, '__version__', '?')} from {qd.__file__}",
                           "device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": ROWS}, f,
                          indent=1)
    return 0


def run(args):
    qd.init(arch=qd.cuda)
    dev = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, quadrants "
          f"{getattr(qd, '__version__', '?')} from {qd.__file__}")
    print("| workload | quadrants | torch | ratio (above 1: quadrants faster) |")
    print("|---|---|---|---|")

    x = torch.full((32,), 3.0, device=dev)
    y = torch.zeros(32, device=dev)
    square(x, y)
    assert torch.equal(y, x * x), "square"
    ours = host_us_per_call(lambda: square(x, y), 2000, args.reps)
    theirs = host_us_per_call(lambda: torch.mul(x, x, out=y), 2000, args.reps)
    row("launch, 32 f32 (host us per call)", ours, theirs, "torch.mul(out=)", "us")
    qx, qy = qd.ndarray(qd.f32, 32), qd.ndarray(qd.f32, 32)
    ours = host_us_per_call(lambda: square(qx, qy), 2000, args.reps)
    row("launch on qd.ndarrays (host us per call)", ours, theirs, "torch.mul(out=)", "us")

    n = 1 << 26
    a, b, c = torch.empty(n, device=dev), torch.rand(n, device=dev), torch.rand(n, device=dev)
    triad(a, b, c, 2.0)
    assert torch.allclose(a, b + 2.0 * c), "triad"
    moved = 3 * 4 * n / 1e9
    ours = moved / (event_median_ms(lambda: triad(a, b, c, 2.0), args.reps) / 1e3)
    theirs = moved / (event_median_ms(lambda: torch.add(b, c, alpha=2.0, out=a), args.reps) / 1e3)
    row("triad 2^26 f32 (GB/s)", ours, theirs, "torch.add(out=)", "GB/s")
    copy = 2 * 4 * n / 1e9 / (event_median_ms(lambda: a.copy_(b), args.reps) / 1e3)
    row("triad 2^26 f32 (GB/s)", ours, copy, "device-to-device copy", "GB/s")

    m = 1 << 24
    values = torch.randint(0, 256, (m,), dtype=torch.int32, device=dev)
    bins = torch.zeros(256, dtype=torch.int32, device=dev)
    histogram(values, bins)
    assert torch.equal(bins.long(), torch.bincount(values, minlength=256)), "histogram"

    def ours_histogram():
        bins.zero_()
        histogram(values, bins)

    ours = event_median_ms(ours_histogram, args.reps)
    theirs = event_median_ms(lambda: torch.bincount(values, minlength=256), args.reps)
    row("histogram 2^24 into 256 bins", ours, theirs, "torch.bincount", "ms")

    xs = torch.rand(m, device=dev)
    out = torch.zeros(1, device=dev)
    total(xs, out)
    assert abs(out.item() - xs.double().sum().item()) < 1e-4 * m, "sum"

    def ours_total():
        out.zero_()
        total(xs, out)

    ours = event_median_ms(ours_total, args.reps)
    theirs = event_median_ms(lambda: torch.sum(xs), args.reps)
    row("sum of 2^24 f32", ours, theirs, "torch.sum", "ms")

    image = torch.empty((MANDEL_SIZE, MANDEL_SIZE), dtype=torch.int32, device=dev)
    expected = torch.empty_like(image)
    torch_mandelbrot(expected)
    image.fill_(-1)  # poisoned: every pixel must be written
    mandelbrot(image)
    torch.cuda.synchronize()
    differing = (image != expected).float().mean().item()
    assert differing <= 0.005, f"mandelbrot: {differing:.2%} of the pixels differ from torch's"
    ours = event_median_ms(lambda: mandelbrot(image), args.reps)
    theirs = event_median_ms(lambda: torch_mandelbrot(expected), max(3, args.reps // 4))
    row(f"mandelbrot {MANDEL_SIZE}^2, {MANDEL_ITERS} iterations", ours, theirs, "eager torch", "ms")


if __name__ == "__main__":
    sys.exit(main())
