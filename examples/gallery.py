# examples/gallery.py: what the gallery examples share: the --small/--out switches and a color map.
import argparse
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(description, image_name):
    """--small (a few seconds on 2 cores, for CI; also env QD_EXAMPLE_SMALL=1) and --out (the PNG's path)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--small", action="store_true", default=os.environ.get("QD_EXAMPLE_SMALL") == "1",
                        help="a small, quick run (CI); the image is smaller too")
    parser.add_argument("--out", default=os.path.join(HERE, "images", image_name), help="where to write the PNG")
    parser.add_argument("--arch", default="cpu", choices=["cpu", "gpu", "cuda"], help="where the kernels run")
    args = parser.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    return args


def inferno(t):
    """Maps values in [0, 1] (any shape) to RGB uint8 with a dark-purple-orange-yellow ramp."""
    stops = np.array([[0, 0, 4], [40, 11, 84], [101, 21, 110], [159, 42, 99], [212, 72, 66],
                      [245, 125, 21], [250, 193, 39], [252, 255, 164]], dtype=np.float32)
    x = np.clip(np.asarray(t, dtype=np.float32), 0.0, 1.0) * (len(stops) - 1)
    low = np.minimum(x.astype(np.int32), len(stops) - 2)
    frac = (x - low)[..., None]
    return (stops[low] * (1 - frac) + stops[low + 1] * frac).astype(np.uint8)
