# python/quadrants/runtime/__init__.py: the runtime floor: qd.init/reset, archs, options, the disk cache, the compiled core (_core).
