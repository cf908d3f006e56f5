# python/quadrants/lang/simt/reductions.py: upstream's module path of the subgroup scans, whose private tiled
# scan its tests import (library/simt/reductions.py).
from quadrants.library.simt.reductions import *  # noqa: F401,F403
from quadrants.library.simt.reductions import _inclusive_scan_tiled  # noqa: F401
