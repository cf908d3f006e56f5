#!/usr/bin/env python3
# scripts/gpu_bundle_tools.py: the steps of scripts/gpu_bundle.sh that need more than the shell: repacking
# wheels uncompressed (so that one xz stream over them compresses across files), trimming Genesis' assets, the
# dependency closure check, the stand-ins for modules left out, and the size guard. Standard library only.
"""Helpers for scripts/gpu_bundle.sh (the GPU machine's bundle, issue 33).

    gpu_bundle_tools.py repack WHEEL OUTDIR [--keep-assets PREFIX ...]
    gpu_bundle_tools.py closure WHEELDIR --python-version 3.12 --present NAMES_FILE [--left-out NAME ...]
    gpu_bundle_tools.py stubs OUTDIR NAME ...
    gpu_bundle_tools.py size BUNDLE [--limit BYTES] [--tree-bytes N] [--repo DIR]

`size` exits 1 when the bundle plus the files that travel with the working tree are over the limit (64 MiB by
default, the device tool's cap on what travels): tracked files, untracked files git does not ignore, and
shared/ where the checkout has one.
"""
import argparse
import os
import re
import subprocess
import sys
import zipfile

LIMIT_BYTES = 64 * 1024 * 1024
# A fixed time stamp, so that repacking the same wheel twice gives the same bytes.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)
ASSETS_PREFIX = "genesis/assets/"


def _wheel_dist_info(names):
    infos = {n.split("/", 1)[0] for n in names if n.split("/", 1)[0].endswith(".dist-info")}
    if len(infos) != 1:
        raise SystemExit(f"gpu_bundle_tools.py: expected one .dist-info folder in the wheel, found {sorted(infos)}")
    return infos.pop()


def repack(wheel, out_dir, keep_assets=None):
    """Writes out_dir/<wheel's name> with every member stored uncompressed; with keep_assets, drops the files
    under genesis/assets/ that no prefix keeps, and their RECORD lines (the wheel stays valid: RECORD hashes
    the contents, not the compression). Returns (files kept, files dropped, bytes dropped)."""
    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, os.path.basename(wheel))
    dropped, dropped_bytes, kept = set(), 0, 0
    with zipfile.ZipFile(wheel) as source:
        infos = source.infolist()
        record = _wheel_dist_info([i.filename for i in infos]) + "/RECORD"
        if keep_assets is not None:
            for info in infos:
                name = info.filename
                if name.startswith(ASSETS_PREFIX) and not any(name.startswith(ASSETS_PREFIX + p) for p in keep_assets):
                    dropped.add(name)
                    dropped_bytes += info.file_size
        with zipfile.ZipFile(target + ".part", "w", zipfile.ZIP_STORED) as out:
            for info in infos:
                if info.filename in dropped:
                    continue
                data = source.read(info)
                if info.filename == record and dropped:
                    lines = data.decode().splitlines(keepends=True)
                    data = "".join(l for l in lines if l.split(",", 1)[0] not in dropped).encode()
                member = zipfile.ZipInfo(info.filename, ZIP_TIME)
                member.external_attr = info.external_attr
                member.compress_type = zipfile.ZIP_STORED
                out.writestr(member, data)
                kept += 1
    os.replace(target + ".part", target)
    return kept, len(dropped), dropped_bytes


def _requirement_parser():
    try:
        from packaging.markers import Marker
        from packaging.requirements import Requirement
    except ImportError:  # pip vendors packaging
        from pip._vendor.packaging.markers import Marker
        from pip._vendor.packaging.requirements import Requirement
    return Requirement, Marker


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_requirements(wheel, python_version):
    """The wheel's Requires-Dist without extras, markers evaluated for Linux x86_64 and python_version."""
    Requirement, _ = _requirement_parser()
    with zipfile.ZipFile(wheel) as zf:
        meta = zf.read(_wheel_dist_info(zf.namelist()) + "/METADATA").decode()
        name = re.search(r"^Name: (.+)$", meta, re.M).group(1).strip()
    env = {"python_version": python_version, "python_full_version": python_version + ".0", "sys_platform": "linux",
           "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix", "extra": "",
           "implementation_name": "cpython", "platform_python_implementation": "CPython"}
    reqs = []
    for line in meta.splitlines():
        if line.startswith("Requires-Dist:"):
            req = Requirement(line.split(":", 1)[1].strip())
            if req.marker is None or req.marker.evaluate(env):
                reqs.append(req)
    return name, reqs


def closure(wheel_dir, python_version, present, left_out):
    """Every requirement of every wheel in wheel_dir is another wheel there, a package on the GPU machine
    (present) or a name left out on purpose; prints the rest and returns how many."""
    wheels = sorted(os.path.join(wheel_dir, w) for w in os.listdir(wheel_dir) if w.endswith(".whl"))
    bundled = {}
    for wheel in wheels:
        name, reqs = wheel_requirements(wheel, python_version)
        bundled[canonical(name)] = reqs
    allowed = set(bundled) | {canonical(n) for n in present} | {canonical(n) for n in left_out}
    missing = 0
    for name, reqs in sorted(bundled.items()):
        for req in reqs:
            if canonical(req.name) not in allowed:
                print(f"closure: {name} requires {req}, which is neither bundled, on the GPU machine nor left out")
                missing += 1
    print(f"closure: {len(bundled)} wheels, {missing} requirement(s) unmet")
    return missing


STUB_SOURCE = '''# {name}/__init__.py: a stand-in written by scripts/gpu_bundle_tools.py, not the real {name}.
# {name} was left out of the GPU bundle for its size: Genesis imports it when it is imported, and the scenes
# that scripts/genesis_gpu_scenes.py runs never use it. Any use raises, and is printed to stderr.
import sys

__stub__ = True


def __getattr__(attribute):
    if attribute.startswith("__"):
        raise AttributeError(attribute)
    message = ("{name}." + attribute + " was used, but {name} is a stand-in on this machine (left out of the GPU "
               "bundle, scripts/gpu_bundle.sh): this scene needs the real package")
    print("GPU-BUNDLE-STUB-USED: " + message, file=sys.stderr, flush=True)
    raise RuntimeError(message)
'''


def write_stubs(out_dir, names):
    for name in names:
        os.makedirs(os.path.join(out_dir, name), exist_ok=True)
        with open(os.path.join(out_dir, name, "__init__.py"), "w") as f:
            f.write(STUB_SOURCE.format(name=name))


def _files_bytes(paths):
    total = 0
    for path in paths:
        if os.path.islink(path):
            total += len(os.readlink(path))
        elif os.path.isfile(path):
            total += os.path.getsize(path)
    return total


def tree_bytes(repo):
    """Bytes of what travels with the working tree besides carried paths: tracked files, untracked files that
    git does not ignore, and shared/ where the checkout has one (counted once)."""
    out = subprocess.run(["git", "-C", repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         check=True, capture_output=True).stdout.decode()
    paths = {os.path.join(repo, p) for p in out.split("\0") if p}
    shared = os.path.join(repo, "shared")
    if os.path.isdir(shared):
        for root, _dirs, files in os.walk(shared):
            paths.update(os.path.join(root, f) for f in files)
    return _files_bytes(paths)


def bundle_bytes(bundle):
    sizes = {}
    for root, _dirs, files in os.walk(bundle):
        for f in files:
            path = os.path.join(root, f)
            sizes[os.path.relpath(path, bundle)] = _files_bytes([path])
    return sizes


def size_guard(bundle, limit, tree):
    """Prints the bundle's files, its total, the tree's and the limit; returns 0 when they fit, else 1."""
    if not os.path.isdir(bundle):
        print(f"size: the bundle folder {bundle!r} does not exist", file=sys.stderr)
        return 2
    sizes = bundle_bytes(bundle)
    for name, n in sorted(sizes.items(), key=lambda kv: -kv[1]):
        print(f"  {n / 2**20:8.2f} MiB  {name}")
    total = sum(sizes.values())
    print(f"bundle {total / 2**20:.2f} MiB + working tree {tree / 2**20:.2f} MiB = {(total + tree) / 2**20:.2f} MiB "
          f"of the {limit / 2**20:.2f} MiB that may travel")
    if total + tree > limit:
        print(f"size: over the limit by {(total + tree - limit) / 2**20:.2f} MiB: leave something out "
              "(scripts/gpu_bundle.sh --leave-out, see --help)", file=sys.stderr)
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("repack", help="rewrite a wheel uncompressed, optionally keeping only some Genesis assets")
    p.add_argument("wheel")
    p.add_argument("out_dir")
    p.add_argument("--keep-assets", nargs="*", help="prefixes under genesis/assets/ to keep (drops the rest)")
    p = sub.add_parser("closure", help="check that the bundled wheels' requirements are met")
    p.add_argument("wheel_dir")
    p.add_argument("--python-version", required=True)
    p.add_argument("--present", required=True, help="a file naming the GPU machine's packages, one a line")
    p.add_argument("--left-out", nargs="*", default=[])
    p = sub.add_parser("stubs", help="write stand-in packages for modules left out")
    p.add_argument("out_dir")
    p.add_argument("names", nargs="+")
    p = sub.add_parser("size", help="the size guard: exit 1 when bundle + working tree exceed the limit")
    p.add_argument("bundle")
    p.add_argument("--limit", type=int, default=LIMIT_BYTES, help=f"bytes (default {LIMIT_BYTES}, 64 MiB)")
    p.add_argument("--tree-bytes", type=int, help="the working tree's bytes (default: measured with git)")
    p.add_argument("--repo", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()

    if args.command == "repack":
        kept, dropped, dropped_bytes = repack(args.wheel, args.out_dir, args.keep_assets)
        print(f"repacked {os.path.basename(args.wheel)}: {kept} files kept"
              + (f", {dropped} asset files ({dropped_bytes / 2**20:.1f} MiB) dropped" if dropped else ""))
        return 0
    if args.command == "closure":
        with open(args.present) as f:
            present = [l.split("#", 1)[0].strip() for l in f if l.split("#", 1)[0].strip()]
        return 1 if closure(args.wheel_dir, args.python_version, present, args.left_out) else 0
    if args.command == "stubs":
        write_stubs(args.out_dir, args.names)
        return 0
    tree = args.tree_bytes if args.tree_bytes is not None else tree_bytes(args.repo)
    return size_guard(args.bundle, args.limit, tree)


if __name__ == "__main__":
    sys.exit(main())
