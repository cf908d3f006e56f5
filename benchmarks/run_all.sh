#!/usr/bin/env bash
# benchmarks/run_all.sh: runs every benchmark in benchmarks/ with the repository's venv and prints their tables.
# Usage: bash benchmarks/run_all.sh   (extra arguments are not forwarded; run a script alone to tune it)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="$root/.venv/bin/python"
if [[ ! -x "$python" ]]; then
  echo "run_all.sh: expected the venv's python at $python; run scripts/build.sh first." >&2
  exit 1
fi
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); cores: $(nproc); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for bench in bench_copy bench_launch bench_triad bench_compile; do
  echo
  echo "## $bench"
  "$python" "$root/benchmarks/$bench.py"
done
