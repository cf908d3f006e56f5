# benchmarks/peers/plot.py: draws ratios.png, each peer's time relative to quadrants per workload, from results.json.
# Runs in the base venv (matplotlib lives there, never in the package's dependencies).
# Usage: python plot.py results.json ratios.png
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the file-only backend)

import report  # noqa: E402


def main(results_path: str, chart_path: str) -> None:
    with open(results_path) as handle:
        results = json.load(handle)
    meta, store = results["meta"], results["frameworks"]
    workloads = [name for name in meta["workloads"] if report.medians(store, name).get(report.US) is not None]
    peers = [name for name in store if name != report.US]
    figure, axes = plt.subplots(figsize=(12, 5.5))
    if not workloads:
        axes.text(0.5, 0.5, "quadrants (this repo) has no figure yet, so there are no ratios to draw.\n"
                  "See RESULTS.md for the peers' own figures.", ha="center", va="center", fontsize=12)
        axes.set_axis_off()
    else:
        width = 0.8 / max(1, len(peers))
        for index, name in enumerate(peers):
            positions, heights = [], []
            for slot, workload in enumerate(workloads):
                value = report.ratio(store, workload, name)
                if value is not None:
                    positions.append(slot - 0.4 + width * (index + 0.5))
                    heights.append(value)
            # a fixed colour per framework, so one with no bars does not shift the others' colours
            axes.bar(positions, heights, width, label=report.LABELS[name], color=f"C{index}")
        axes.axhline(1.0, color="black", linewidth=1)
        axes.set_yscale("log")
        axes.set_xticks(range(len(workloads)), [report.WORKLOADS[name][0] for name in workloads], rotation=20, ha="right")
        axes.set_ylabel("peer time / quadrants time (log)\nabove 1: quadrants faster")
        axes.legend(fontsize=8, ncol=3)
    machine = meta["machine"]
    axes.set_title(f"quadrants vs peers, {machine['cores']} cores {machine['cpu']}, {meta['date']}")
    figure.tight_layout()
    figure.savefig(chart_path, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
