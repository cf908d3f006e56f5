#!/usr/bin/env bash
# scripts/build_docs.sh: builds the documentation site (Sphinx over docs/: the guide, the compatibility
# table, the gallery with its pictures, the changelog and the API reference of `quadrants`) into
# build/docs/html, or OUT, with warnings as errors.
#
#   bash scripts/build_docs.sh [OUT]
#
# Runs with .venv's Python (or $QD_DOCS_PYTHON), which must have quadrants, sphinx and myst-parser
# (scripts/setup.sh installs them). Every build starts fresh (-E), so every warning shows each time;
# --keep-going lists them all before the build fails. A public name without a docstring is a warning
# (docs/conf.py). tests/python/test_docs.py runs this and checks that every name in dir(qd) is in the
# reference.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$REPO/build/docs/html}
PY=${QD_DOCS_PYTHON:-$REPO/.venv/bin/python}
"$PY" -c "import sphinx, myst_parser, quadrants" 2>/dev/null || {
  echo "build_docs.sh: $PY needs sphinx, myst-parser and quadrants (bash scripts/setup.sh installs them)" >&2; exit 2; }
start=$SECONDS
"$PY" -m sphinx -E -W --keep-going -q -b html -d "$(dirname "$OUT")/doctrees" "$REPO/docs" "$OUT"
echo "[build_docs] built $OUT/index.html in $((SECONDS - start)) s"
