# python/quadrants/_test_tools/__init__.py: helpers upstream ships in its package for its own tests,
# which import them as quadrants._test_tools.<module>.
from quadrants.runtime import init as _runtime


def qd_init_same_arch(**options):
    """qd.init() again with the current arch and the given options (a reset, as every qd.init() is)."""
    if _runtime._config is None:
        raise RuntimeError("qd_init_same_arch() needs an earlier qd.init() to take the arch from.")
    _runtime.init(arch=_runtime._config.arch, **options)
