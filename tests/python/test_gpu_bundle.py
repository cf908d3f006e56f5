# tests/python/test_gpu_bundle.py: the GPU bundle's tools (scripts/gpu_bundle_tools.py, scripts/gpu_bundle.sh) on tiny
# fakes, with nothing downloaded: the size guard, what counts as travelling with the tree, wheel trimming, the
# dependency closure check and the stand-ins for modules left out.
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.cpu_only  # scripts only; nothing differs on CUDA

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "scripts" / "gpu_bundle_tools.py"


def tools(*args, **kwargs):
    return subprocess.run([sys.executable, str(TOOLS), *map(str, args)], capture_output=True, text=True, **kwargs)


def fake_bundle(tmp_path, sizes):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    for name, size in sizes.items():
        (bundle / name).write_bytes(b"\0" * size)
    return bundle


def test_size_guard_fails_when_bundle_and_tree_exceed_the_limit(tmp_path):
    bundle = fake_bundle(tmp_path, {"genesis.tar.xz": 3000, "base.tar.xz": 1000})
    over = tools("size", bundle, "--limit", 5000, "--tree-bytes", 1001)
    assert over.returncode == 1
    assert "over the limit by 0.00 MiB" in over.stderr and "--leave-out" in over.stderr
    assert "genesis.tar.xz" in over.stdout  # the parts are listed, largest first
    assert over.stdout.index("genesis.tar.xz") < over.stdout.index("base.tar.xz")


def test_size_guard_passes_at_the_limit(tmp_path):
    bundle = fake_bundle(tmp_path, {"genesis.tar.xz": 3000, "base.tar.xz": 1000})
    fits = tools("size", bundle, "--limit", 5000, "--tree-bytes", 1000)
    assert fits.returncode == 0, fits.stderr
    assert "bundle 0.00 MiB + working tree 0.00 MiB" in fits.stdout


def test_size_guard_rejects_a_missing_bundle(tmp_path):
    result = tools("size", tmp_path / "nowhere", "--tree-bytes", 0)
    assert result.returncode == 2 and "does not exist" in result.stderr


def test_tree_counts_tracked_and_untracked_files_but_not_ignored_ones(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(git + ["init", "-q"], check=True)
    (repo / ".gitignore").write_text("build/\n")  # 7 bytes, tracked
    (repo / "tracked.txt").write_bytes(b"a" * 100)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "x"], check=True)
    (repo / "untracked.txt").write_bytes(b"b" * 20)  # travels: untracked, not ignored
    (repo / "build").mkdir()
    (repo / "build" / "big.bin").write_bytes(b"c" * 5000)  # ignored: travels only when carried
    bundle = fake_bundle(tmp_path, {"part.tar.xz": 10})
    result = tools("size", bundle, "--repo", repo, "--limit", 137)
    assert result.returncode == 0, result.stdout + result.stderr
    result = tools("size", bundle, "--repo", repo, "--limit", 136)  # 10 + 7 + 100 + 20 = 137
    assert result.returncode == 1


def make_wheel(path, files, requires=()):
    dist = "genesis_world-1.4.5.dist-info"
    record = [f"{name},sha256=x,{len(data)}" for name, data in files.items()] + [f"{dist}/RECORD,,"]
    meta = "Metadata-Version: 2.1\nName: genesis-world\nVersion: 1.4.5\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        zf.writestr(f"{dist}/METADATA", meta)
        zf.writestr(f"{dist}/RECORD", "\n".join(record) + "\n")
    return path


def test_repack_stores_members_and_keeps_only_the_chosen_assets(tmp_path):
    files = {"genesis/__init__.py": b"x = 1\n", "genesis/assets/urdf/go2/go2.urdf": b"<robot/>" * 50,
             "genesis/assets/meshes/dragon.obj": b"v 0 0 0\n" * 100, "genesis/assets/urdf/plane/plane.urdf": b"<p/>"}
    wheel = make_wheel(tmp_path / "genesis_world-1.4.5-py3-none-any.whl", files)
    out = tmp_path / "out"
    result = tools("repack", wheel, out, "--keep-assets", "urdf/go2/", "urdf/plane/")
    assert result.returncode == 0, result.stderr
    assert "1 asset files" in result.stdout
    with zipfile.ZipFile(out / wheel.name) as zf:
        names = zf.namelist()
        record = zf.read("genesis_world-1.4.5.dist-info/RECORD").decode()
        assert all(info.compress_type == zipfile.ZIP_STORED for info in zf.infolist())
        assert zf.read("genesis/assets/urdf/go2/go2.urdf") == files["genesis/assets/urdf/go2/go2.urdf"]
    assert "genesis/assets/meshes/dragon.obj" not in names and "dragon.obj" not in record
    assert "genesis/assets/urdf/go2/go2.urdf" in names and "go2.urdf" in record
    assert "genesis/__init__.py" in names


def test_closure_names_a_requirement_nobody_provides(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels / "genesis_world-1.4.5-py3-none-any.whl", {"genesis/__init__.py": b""},
               requires=["numpy>=1.26", "frozendict", "quadrants==1.3.3", "pytest; extra == 'dev'",
                         "gs-madrona==0.0.10; platform_system == 'Darwin'"])
    present = tmp_path / "present.txt"
    present.write_text("# the machine's packages\nnumpy\n")
    missing = tools("closure", wheels, "--python-version", "3.12", "--present", present, "--left-out", "quadrants")
    assert missing.returncode == 1
    assert "requires frozendict" in missing.stdout and "1 requirement(s) unmet" in missing.stdout
    met = tools("closure", wheels, "--python-version", "3.12", "--present", present, "--left-out", "quadrants",
                "frozendict")
    assert met.returncode == 0, met.stdout


def test_stand_in_imports_but_raises_on_use(tmp_path):
    assert tools("stubs", tmp_path, "fake_av").returncode == 0
    script = "import fake_av\ntry:\n    fake_av.open('x.mp4')\nexcept RuntimeError as e:\n    print('raised:', e)\n"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    assert "raised: fake_av.open was used" in proc.stdout
    assert "GPU-BUNDLE-STUB-USED: fake_av.open" in proc.stderr


def test_bundle_script_rejects_an_unknown_part_before_downloading(tmp_path):
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gpu_bundle.sh"), "--leave-out", "assets",
                           "--out", str(tmp_path / "b")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--leave-out takes base, genesis, quadrants133, upstream, googletest; not assets" in proc.stderr
    assert not (tmp_path / "b").exists()
