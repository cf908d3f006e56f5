# tests/python/test_examples.py: every gallery example runs small and writes a real, non-trivial PNG.
#
# Each example also checks its own invariant (conserved heat or mass, agreement with numpy, a descent
# that converged) and exits non-zero when it fails; the test checks the exit status, then decodes the
# PNG (chunk CRCs, header, pixel data) and that the picture has structure, not one flat color.
import os
import re
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(REPO, "examples")

# example -> (width, height) of its --small image
GALLERY = {
    "julia": (160, 120),
    "heat": (96, 64),
    "life": (192, 192),
    "raymarch": (120, 90),
    "mpm": (144, 144),
    "throw": (200, 120),
}


def read_png(path):
    """The (H, W, 3) uint8 pixels of an 8-bit RGB PNG; fails on a bad signature, CRC or size."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc, f"bad CRC in chunk {kind!r}"
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (depth, color, interlace) == (8, 2, 0), "expected 8-bit RGB, not interlaced"
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), dtype=np.uint8).reshape(height, width * 3 + 1)
    assert np.all(raw[:, 0] == 0), "the writer uses filter 0 on every row"
    assert b"IEND" in chunks
    return raw[:, 1:].reshape(height, width, 3)


def run_example(name, *args, timeout=300):
    env = dict(os.environ, QD_NUM_THREADS="2")
    if os.environ.get("QD_TEST_ARCH") == "cuda":  # the CUDA pass of the suite runs the examples on CUDA too
        args = (*args, "--arch", "cuda")
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, f"{name}.py"), *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=REPO)


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_example_runs_small_and_writes_a_picture(name, tmp_path):
    out = tmp_path / f"{name}.png"
    result = run_example(name, "--small", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"wrote {out}" in result.stdout
    pixels = read_png(out)
    assert pixels.shape == (GALLERY[name][1], GALLERY[name][0], 3)
    assert pixels.astype(np.float64).std() > 20.0, "the picture is (nearly) flat"
    colors, counts = np.unique(pixels.reshape(-1, 3), axis=0, return_counts=True)
    assert len(colors) >= 3 and counts.max() < 0.97 * counts.sum(), "the picture is nearly one color"
    PICTURE_CHECKS.get(name, lambda pixels: None)(pixels)


def julia_is_point_symmetric(pixels):
    # every Julia set of z^2 + c is symmetric under z -> -z: the picture under a half turn
    assert np.mean(np.any(pixels != pixels[::-1, ::-1], axis=-1)) < 0.01


def mpm_fluid_lies_at_the_bottom(pixels):
    background = pixels[0, pixels.shape[1] // 2]
    fluid = np.any(pixels != background, axis=-1)
    half = pixels.shape[0] // 2
    assert fluid[half:].sum() > 3 * fluid[:half].sum(), "the fluid did not fall to the bottom"


PICTURE_CHECKS = {"julia": julia_is_point_symmetric, "mpm": mpm_fluid_lies_at_the_bottom}


def test_gallery_page_shows_every_example_with_its_committed_image():
    with open(os.path.join(REPO, "docs", "gallery.md")) as f:
        page = f.read()
    for name in GALLERY:
        image = os.path.join(EXAMPLES, "images", f"{name}.png")
        assert f"](../examples/images/{name}.png)" in page and f"python examples/{name}.py" in page, name
        assert 0 < os.path.getsize(image) < 200_000, image
        height, width, _ = read_png(image).shape
        assert width > GALLERY[name][0] and height > GALLERY[name][1], "commit the full-size image"
    assert re.search(r"\]\(\S*gallery\.md\)", open(os.path.join(REPO, "README.md")).read())
    assert re.search(r"\]\(\S*gallery\.md\)", open(os.path.join(REPO, "docs", "guide.md")).read())
