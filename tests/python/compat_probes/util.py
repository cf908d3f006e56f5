# tests/python/compat_probes/util.py: small helpers the probes share.
import os
import sys
import tempfile

import quadrants as qd


def fd_output(run):
    """What run() writes to file descriptor 1 (kernel print and debug reports go there, not through sys.stdout)."""
    sys.stdout.flush()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(1)
        os.dup2(sink.fileno(), 1)
        try:
            run()
            qd.sync()
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        sink.seek(0)
        return sink.read().decode()


def same(got, expected, tolerance=0.0):
    """Raises AssertionError naming both values when got differs from expected by more than tolerance."""
    import numpy as np

    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=tolerance, atol=tolerance)
