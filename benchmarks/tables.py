# benchmarks/tables.py: the markdown table shared by the bandwidth benchmarks (bench_copy, bench_triad).


def bandwidth_table(title, rows, nbytes, baseline_name):
    """rows: (label, seconds), baseline first; GB/s counts nbytes once (10**9 bytes per GB)."""
    baseline = rows[0][1]
    lines = [f"| {title} | median ms | GB/s | ratio vs {baseline_name} |", "| --- | ---: | ---: | ---: |"]
    for label, seconds in rows:
        lines.append(f"| {label} | {seconds * 1e3:.2f} | {nbytes / seconds / 1e9:.2f} | {baseline / seconds:.2f}x |")
    return "\n".join(lines)
