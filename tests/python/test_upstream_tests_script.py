# tests/python/test_upstream_tests_script.py: scripts/upstream_tests.py's bookkeeping of crashes, on a tiny tests/ tar.
import io
import json
import os
import subprocess
import sys
import tarfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "upstream_tests.py")

CRASHING_FILE = '''
import os
import pytest


@pytest.fixture
def aborts_in_teardown():
    yield
    os.abort()  # as a test that wrote past an array's end and corrupted the heap dies when its memory is freed


def test_a_fails_then_the_process_dies(aborts_in_teardown):
    assert False, "first"


def test_b_runs_after_the_crash():
    pass
'''


def test_a_crash_after_a_recorded_outcome_resumes_the_file(tmp_path):
    tar_path = tmp_path / "tests.tar"
    with tarfile.open(tar_path, "w") as tar:
        data = CRASHING_FILE.encode()
        info = tarfile.TarInfo("tests/python/test_crashing.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    out = tmp_path / "out.json"
    subprocess.run([sys.executable, SCRIPT, "test_crashing.py", "--repo", str(tar_path), "--python", sys.executable,
                    "--count-python", str(tmp_path / "none"), "--json", str(out)], check=True, capture_output=True)
    records = {r["test"].split("::")[-1]: r for r in json.loads(out.read_text())["test_crashing.py"]}
    assert set(records) == {"test_a_fails_then_the_process_dies", "test_b_runs_after_the_crash"}
    first = records["test_a_fails_then_the_process_dies"]
    assert first["outcome"] == "failed" and first["message"].endswith("(then the process died of signal 6)")
    assert records["test_b_runs_after_the_crash"]["outcome"] == "passed"


CHILD_FILE = '''
import os
import subprocess
import sys


def test_a_child_with_pythonpath_dot_imports_the_harness_package():
    # As upstream's fast-cache tests start their children: PYTHONPATH replaced by "." (the exported root).
    env = dict(os.environ, PYTHONPATH=".")
    done = subprocess.run([sys.executable, "-c", "import qd_probe_package; print(qd_probe_package.WHERE)"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "harness"
'''


def test_children_started_with_pythonpath_dot_import_what_the_harness_imports(tmp_path):
    tar_path = tmp_path / "tests.tar"
    with tarfile.open(tar_path, "w") as tar:
        data = CHILD_FILE.encode()
        info = tarfile.TarInfo("tests/python/test_child.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    package_dir = tmp_path / "site"
    package_dir.mkdir()
    (package_dir / "qd_probe_package.py").write_text("WHERE = 'harness'\n")
    out = tmp_path / "out.json"
    env = dict(os.environ, PYTHONPATH=str(package_dir))
    subprocess.run([sys.executable, SCRIPT, "test_child.py", "--repo", str(tar_path), "--python", sys.executable,
                    "--count-python", str(tmp_path / "none"), "--json", str(out)], check=True, capture_output=True,
                   env=env)
    records = json.loads(out.read_text())["test_child.py"]
    assert [r["outcome"] for r in records] == ["passed"], records


def test_missing_upstream_test_requirements_are_named(tmp_path):
    """Upstream's tests assume its `test` dependency group (pytest-xdist, pyright): the harness names the ones the
    test interpreter lacks, so their failures are not taken for quadrants'; the outcomes themselves are unchanged."""
    repo = tmp_path / "upstream"
    (repo / "tests" / "python").mkdir(parents=True)
    (repo / "python" / "tools").mkdir(parents=True)
    (repo / "python" / "tools" / "README").write_text("tools\n")
    (repo / "tests" / "python" / "test_plain.py").write_text("def test_fails():\n    assert False\n")
    (repo / "pyproject.toml").write_text('[dependency-groups]\ntest = ["pytest", "qd-no-such-distribution>=1.0; '
                                         'python_version > \'3\'", {include-group = "other"}]\n')
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "snapshot"], check=True)
    out = tmp_path / "out.json"
    done = subprocess.run([sys.executable, SCRIPT, "test_plain.py", "--repo", str(repo), "--python", sys.executable,
                           "--count-python", str(tmp_path / "none"), "--json", str(out)], check=True,
                          capture_output=True, text=True)
    assert "lacks upstream's test requirements qd-no-such-distribution;" in done.stdout
    assert "pytest," not in done.stdout  # installed: not named
    with open(tmp_path / "out.summary.json") as f:
        assert json.load(f)["missing_test_requirements"] == ["qd-no-such-distribution"]
    with open(out) as f:
        assert [r["outcome"] for r in json.load(f)["test_plain.py"]] == ["failed"]


PATH_FILE = '''
import os
import shutil
import sys


def test_python_on_path_is_the_interpreter_under_test():
    assert os.path.dirname(shutil.which("python")) == os.path.dirname(sys.executable)
'''


def test_tools_that_look_for_python_on_path_find_the_interpreter_under_test(tmp_path):
    """As in upstream's activated environment: pyright (test_pyi_stubs.py) resolves packages with the `python` on
    PATH, which must be the interpreter the tests run under, not whatever the caller's PATH names first."""
    tar_path = tmp_path / "tests.tar"
    with tarfile.open(tar_path, "w") as tar:
        data = PATH_FILE.encode()
        info = tarfile.TarInfo("tests/python/test_path.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    out = tmp_path / "out.json"
    env = dict(os.environ, PATH="/usr/bin:/bin")  # no venv on it
    subprocess.run([sys.executable, SCRIPT, "test_path.py", "--repo", str(tar_path), "--python", sys.executable,
                    "--count-python", str(tmp_path / "none"), "--json", str(out)], check=True, capture_output=True,
                   env=env)
    assert [r["outcome"] for r in json.loads(out.read_text())["test_path.py"]] == ["passed"]
