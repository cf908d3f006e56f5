# tests/python/test_headers_with_torch.py: our public C++ headers compile in one translation unit with
# ATen's, in either order. Both bring DLPack; ours is the official dlpack.h, so its include guard makes
# the two one definition (our own structs used to clash with ATen's: 13 redefinition errors).
import shutil
import subprocess
from pathlib import Path

import pytest

import quadrants as qd

torch = pytest.importorskip("torch")
from torch.utils.cpp_extension import include_paths  # noqa: E402

pytestmark = [pytest.mark.cpu_only,  # a compile of headers; nothing runs
              pytest.mark.skipif(shutil.which("c++") is None, reason="needs a C++ compiler")]

OUR_HEADERS = sorted(p.name for p in (Path(qd.get_include()) / "quadrants").glob("*.h"))
ATEN = ["#include <ATen/DLConvertor.h>", "#include <ATen/dlpack.h>"]


def syntax_check(tmp_path, lines):
    source = tmp_path / "both.cpp"
    source.write_text("\n".join(lines) + "\nint main() { DLManagedTensorVersioned* t = nullptr; (void)t; }\n")
    # torch 2.13's headers are written for C++20 (bit-field initializers); ours need C++17 or later.
    command = ["c++", "-std=c++20", "-fsyntax-only", f"-I{qd.get_include()}", *(f"-I{p}" for p in include_paths()),
               str(source)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert done.returncode == 0 and not errors, "\n".join(errors[:20])


def test_our_headers_after_aten(tmp_path):
    syntax_check(tmp_path, ATEN + [f'#include "quadrants/{h}"' for h in OUR_HEADERS])


def test_our_headers_before_aten(tmp_path):
    syntax_check(tmp_path, [f'#include "quadrants/{h}"' for h in OUR_HEADERS] + ATEN)


def test_dlpack_header_is_the_official_one_with_its_license():
    vendor = Path(qd.get_include()) / "quadrants" / "vendor" / "dlpack"
    text = (vendor / "dlpack.h").read_text()
    assert "#ifndef DLPACK_DLPACK_H_" in text and "#define DLPACK_MINOR_VERSION 3" in text
    assert "Apache License" in (vendor / "LICENSE").read_text()
