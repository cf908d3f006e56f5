# tests/python/compat_probes/__init__.py: imports every probe module, so that PROBES holds every row's probe.
from compat_probes.registry import PROBES, STATUSES, Probe, probe  # noqa: F401
from compat_probes import absent, autodiff, data, kernels, library, runtime  # noqa: F401,E402  they register
