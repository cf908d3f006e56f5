#!/usr/bin/env bash
# scripts/debian_root.sh: makes a Debian root (a directory tree made by mmdebstrap) under build/roots/, and
# runs commands inside it, for building and testing wheels against another Debian's glibc and Python.
#
#   bash scripts/debian_root.sh SUITE                    # make build/roots/SUITE if missing, print its path
#   bash scripts/debian_root.sh SUITE --python X.Y       # ... with pythonX.Y in it (see below)
#   bash scripts/debian_root.sh SUITE --run CMD [ARG...] # run CMD inside it, the repository at /src
#
# SUITE is a Debian release name: bullseye (Debian 11, glibc 2.31), bookworm (12, glibc 2.36), trixie
# (13, glibc 2.41). A root holds the compiler, CMake and what building CPython needs, nothing of the host;
# it is made once (about 150 MB of packages from Debian's archive) and reused. pythonX.Y is Debian's own
# package where the suite ships it (trixie: 3.13, bookworm: 3.11); otherwise it is built from the
# source package of the Debian release that ships it (3.11 from bookworm, 3.13 from trixie) into
# /opt/pythonX.Y inside the root, once (a few minutes; no tests, no PGO: it only runs builds and tests).
#
# Inside, the environment is emptied but for PATH (with /opt/python*/bin), HOME, LANG, the host's CA
# bundle, pip's settings (PIP_*), QD_CHECK_WHEEL_* and QD_TOOLS_VENV; /dev and /proc are mounted in a private mount
# namespace, so nothing stays mounted when the command ends. $PIP_FIND_LINKS (the folder of local wheels,
# where torch==2.13.0 lies) is mounted read-only at the same path when it is a folder. QD_ROOT_OUT=DIR
# mounts the host folder DIR at /out. Needs root (mmdebstrap, chroot and mount); CI runs as root.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${1:?usage: debian_root.sh SUITE [--python X.Y | --run CMD...]}
shift
ROOT=${QD_ROOTS_DIR:-$REPO/build/roots}/$SUITE
log() { echo "[debian_root $SUITE] $*" >&2; }

[ "$(id -u)" = 0 ] || { echo "debian_root.sh: needs root (mmdebstrap, chroot, mount); run it as root" >&2; exit 2; }

# Packages: a compiler and CMake for the wheel build and the C++ example, and the headers CPython's build
# needs (ssl for pip, zlib/bz2/lzma for archives, ffi for ctypes, sqlite and readline for completeness).
BUILD_PACKAGES=build-essential,cmake,pkg-config,ca-certificates,xz-utils,libssl-dev,zlib1g-dev,libffi-dev,libbz2-dev,liblzma-dev,libsqlite3-dev,uuid-dev,libreadline-dev,libncurses-dev,libgdbm-dev
case "$SUITE" in
  trixie) NATIVE_PYTHON=3.13 ;;
  bookworm) NATIVE_PYTHON=3.11 ;;
  *) NATIVE_PYTHON= ;;
esac

make_root() {
  [ -f "$ROOT/.quadrants-root" ] && return 0
  command -v mmdebstrap >/dev/null || {
    log "installing mmdebstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
  }
  local extra=""
  [ -n "$NATIVE_PYTHON" ] && extra=",python$NATIVE_PYTHON,python$NATIVE_PYTHON-venv,python$NATIVE_PYTHON-dev"
  log "making $ROOT with mmdebstrap (Debian's default mirror for $SUITE)"
  rm -rf "$ROOT"
  mkdir -p "$(dirname "$ROOT")"
  local start=$SECONDS
  mmdebstrap --variant=apt --include="$BUILD_PACKAGES$extra" "$SUITE" "$ROOT" 2>&1 | { grep -vE "^I: " || true; }
  mkdir -p "$ROOT/src" "$ROOT/out"
  touch "$ROOT/.quadrants-root"
  log "made in $((SECONDS - start)) s ($(du -sm "$ROOT" | cut -f1) MB)"
}

# run_in_root CMD...: CMD inside the root, mounts private to this command.
run_in_root() {
  local wheels=""
  [ -n "${PIP_FIND_LINKS:-}" ] && [ -d "$PIP_FIND_LINKS" ] && wheels=$PIP_FIND_LINKS
  local env_args=(HOME=/root LANG=C.UTF-8 PATH="$(printf '%s:' "$ROOT"/opt/python*/bin | sed "s#$ROOT##g")/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
  env_args+=(SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt PIP_CERT=/etc/ssl/certs/ca-certificates.crt)
  while IFS= read -r kv; do env_args+=("$kv"); done < <(env | grep -E "^(PIP_[A-Z_]*|QD_CHECK_WHEEL_[A-Z]*|QD_TOOLS_VENV)=" | grep -vE "^PIP_(CERT|CONSTRAINT)=")
  [ -z "$wheels" ] && env_args+=(PIP_FIND_LINKS=)
  QD_ROOT="$ROOT" QD_REPO="$REPO" QD_WHEELS="$wheels" QD_OUT="${QD_ROOT_OUT:-}" unshare --mount --propagation private \
    bash -c '
      set -e
      mount --rbind /dev "$QD_ROOT/dev"
      mount -t proc proc "$QD_ROOT/proc"
      mount --bind "$QD_REPO" "$QD_ROOT/src"
      [ -n "$QD_OUT" ] && mount --bind "$QD_OUT" "$QD_ROOT/out"
      if [ -n "$QD_WHEELS" ]; then mkdir -p "$QD_ROOT$QD_WHEELS"; mount --bind -o ro "$QD_WHEELS" "$QD_ROOT$QD_WHEELS"; fi
      # the host CA bundle: it may hold a certificate the network needs that Debian'"'"'s bundle lacks
      [ -f /etc/ssl/certs/ca-certificates.crt ] && mount --bind -o ro /etc/ssl/certs/ca-certificates.crt "$QD_ROOT/etc/ssl/certs/ca-certificates.crt"
      cp /etc/resolv.conf "$QD_ROOT/etc/resolv.conf"
      exec chroot "$QD_ROOT" "$@"' bash env -i "${env_args[@]}" "$@"
}

# ensure_python X.Y: pythonX.Y with venv and headers inside the root.
ensure_python() {
  local ver=$1
  if [ "$ver" = "$NATIVE_PYTHON" ] || [ -x "$ROOT/opt/python$ver/bin/python$ver" ]; then return 0; fi
  local source_suite
  case "$ver" in
    3.11) source_suite=bookworm ;;
    3.13) source_suite=trixie ;;
    *) echo "debian_root.sh: no Debian release ships Python $ver as a source package here; known: 3.11, 3.13" >&2; exit 2 ;;
  esac
  log "building Python $ver from Debian $source_suite's source package into /opt/python$ver"
  local start=$SECONDS
  # deb-src of that release, from the mirror the root's own sources name.
  local mirror
  mirror=$(grep -hoE "^deb +(\[[^]]*\] +)?[a-z]+://[^ ]+" "$ROOT"/etc/apt/sources.list 2>/dev/null | head -1 | awk '{print $NF}')
  echo "deb-src $mirror $source_suite main" > "$ROOT/etc/apt/sources.list.d/python-source.list"
  run_in_root bash -c "
    set -euo pipefail
    apt-get update -qq
    rm -rf /opt/python-src && mkdir -p /opt/python-src && cd /opt/python-src
    apt-get source --download-only -qq python$ver/$source_suite 2>&1 | { grep -v \"^W: Download is performed unsandboxed\" || true; }
    tar -xf python${ver}_*.orig.tar.*
    cd Python-*/
    ./configure -q --prefix=/opt/python$ver --with-ensurepip=install >/dev/null
    make -s -j\$(nproc) >/dev/null 2>make-warnings.log || { tail -40 make-warnings.log; exit 1; }
    make -s altinstall >/dev/null 2>>make-warnings.log
    cd / && rm -rf /opt/python-src"
  rm -f "$ROOT/etc/apt/sources.list.d/python-source.list"
  bash "$0" "$SUITE" --run "python$ver" -c "import ssl, venv, zlib, ctypes, sys; print('[debian_root] built', sys.version.split()[0])"
  log "Python $ver built in $((SECONDS - start)) s"
}

make_root
case "${1:-}" in
  "") echo "$ROOT" ;;
  --python) ensure_python "${2:?--python needs a version such as 3.13}"; echo "$ROOT" ;;
  --run) shift; run_in_root "$@" ;;
  *) echo "debian_root.sh: unknown option $1 (see the header of this script)" >&2; exit 2 ;;
esac
