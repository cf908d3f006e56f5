#!/usr/bin/env bash
# scripts/run_demo.sh: sets everything up, then runs the main demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python examples/demo.py
