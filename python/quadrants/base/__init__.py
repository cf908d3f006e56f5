# python/quadrants/base/__init__.py: the ground floor: dtypes, errors, logging, swizzles and the registry; it imports nothing of the package.
