# tests/python/test_docs.py: the documentation site (scripts/build_docs.sh, Sphinx over docs/) builds with
# warnings as errors, and its API reference covers every public name of `quadrants`.
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")
pytestmark = pytest.mark.cpu_only  # builds documents; no kernel runs

import quadrants as qd  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

def public_names():
    """dir(qd), which lists upstream's names, and quadrants' own top-level additions, which it leaves out."""
    return sorted(name for name in set(dir(qd)) | qd._QUADRANTS_ONLY if not name.startswith("_"))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One strict build for the module's tests: (exit code, warning lines, output folder)."""
    out = tmp_path_factory.mktemp("docs") / "html"
    done = subprocess.run(["bash", str(REPO / "scripts" / "build_docs.sh"), str(out)],
                          check=False, env=dict(os.environ, QD_DOCS_PYTHON=sys.executable),
                          capture_output=True, text=True, timeout=900)
    warnings = [line for line in (done.stdout + done.stderr).splitlines() if "WARNING" in line or "ERROR" in line]
    return done.returncode, warnings, out


def test_every_public_name_is_in_the_reference(site):
    from sphinx.util.inventory import InventoryFile

    _, warnings, out = site
    inventory_path = out / "objects.inv"
    assert inventory_path.is_file(), "no objects.inv was written: " + "\n".join(warnings[:20])
    with open(inventory_path, "rb") as stream:
        inventory = InventoryFile.load(stream, str(out), os.path.join)
    documented = {name for entries in inventory.values() for name in entries}
    absent = [name for name in public_names() if f"quadrants.{name}" not in documented]
    assert not absent, f"{len(absent)} names of dir(qd) are not in docs/api.rst: {', '.join(absent)}"


def docstring_problems(warnings):
    """{"missing NAME", "invalid NAME"} from the build's warnings, and the warnings that are neither."""
    problems, other = set(), []
    for line in warnings:
        if m := re.search(r"missing docstring: quadrants\.(\S+)", line):
            problems.add(f"missing {m.group(1)}")
        elif m := re.search(r"docstring of quadrants\.(?:\w+\.)*?(\w+):\d+: (WARNING|ERROR)", line):
            problems.add(f"invalid {m.group(1)}")  # the public name is the definition's last component
        else:
            other.append(line)
    return problems, other


def test_site_builds_with_warnings_as_errors(site):
    code, warnings, out = site
    problems, other = docstring_problems(warnings)
    assert not problems, "public names whose docstring is missing or not valid reST: " + ", ".join(sorted(problems))
    assert not other, "the documentation build warns:\n" + "\n".join(other)
    assert code == 0
    assert (out / "index.html").is_file() and (out / "api.html").is_file()


def _words(html_text):
    """The words of an HTML fragment, tags and markup gone (Sphinx curls quotes, so punctuation is left out)."""
    return " ".join(re.findall(r"\w+", html.unescape(re.sub(r"<[^>]+>", " ", html_text))))


def test_each_builtin_shows_its_own_docstring(site):
    """The kernel built-ins are instances of one callable class (frontend/builtins.py's Builtin): each entry of the
    reference shows that built-in's own signature (the docstring's first line) and text, not the class's."""
    from quadrants.frontend.builtins import Builtin

    _, _, out = site
    page = (out / "api.html").read_text()
    names = [name for name in public_names() if isinstance(getattr(qd, name), Builtin)]
    assert len(names) > 50, f"expected the kernel built-ins among dir(qd), found {names}"
    for name in names:
        start = page.find(f'id="quadrants.{name}"')
        assert start >= 0, f"api.html has no entry quadrants.{name}"
        signature_html, _, rest = page[start:].partition("</dt>")
        body = rest.split("</dd>")[0]
        signature, _, text = getattr(qd, name).__doc__.partition("\n\n")
        assert _words(signature) in _words(signature_html), f"quadrants.{name} shows the signature " \
            f"{_words(signature_html)!r}, not {signature!r}"
        first_sentence = text.split(". ")[0]
        assert _words(first_sentence) in _words(body), f"quadrants.{name} does not show its docstring: {_words(body)!r}"


def test_gallery_pictures_are_in_the_site(site):
    _, _, out = site
    pictures = sorted(p.name for p in (REPO / "examples" / "images").glob("*.png"))
    assert pictures, "examples/images has no pictures"
    page = (out / "gallery.html").read_text()
    for name in pictures:
        assert (out / "_images" / name).is_file(), f"{name} was not copied into the site"
        assert f"_images/{name}" in page, f"gallery.html does not show {name}"
