# scripts/find_python.sh: sourced by the wheel scripts; find_python X.Y prints a CPython X.Y interpreter that
# runs, or fails: pythonX.Y from PATH (a pyenv shim there may name a version that is not selected, so it is
# run, not just looked up), else pyenv's newest X.Y.
find_python() {
  local ver=$1 candidate
  if candidate=$(command -v "python$ver") && "$candidate" -c "" 2>/dev/null; then
    echo "$candidate"
    return 0
  fi
  local pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
  for candidate in $(ls -d "$pyenv_root"/versions/"$ver".*/bin/python"$ver" 2>/dev/null | sort -V -r); do
    if "$candidate" -c "" 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}
