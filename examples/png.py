# examples/png.py: a minimal PNG writer (stdlib only) for the examples' images.
import struct
import zlib

import numpy as np


def write_png(path, rgb):
    """Writes an (H, W, 3) uint8 array as an 8-bit RGB PNG."""
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    height, width, _ = rgb.shape
    raw = np.zeros((height, width * 3 + 1), dtype=np.uint8)  # filter byte 0 per row
    raw[:, 1:] = rgb.reshape(height, width * 3)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", header))
        f.write(chunk(b"IDAT", zlib.compress(raw.tobytes(), 9)))
        f.write(chunk(b"IEND", b""))
