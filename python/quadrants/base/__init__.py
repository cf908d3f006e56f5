# python/quadrants/base/__init__.py: the ground floor: dtypes, errors, logging, swizzles and the registry; it imports nothing of the package.
"""The ground floor (1) of the package: dtype objects (`qd.f32`, ...) with their numpy and torch equivalents
(`dtypes`), the exception classes under upstream's names (`errors`), logging (`log`), the swizzle rules of
vectors (`swizzles`), and `registry`, the one seam through which a lower floor calls into a higher one. It
imports no other module of quadrants. Its public names are re-exported by `quadrants` itself (`qd.f32`,
`qd.QuadrantsSyntaxError`, `qd.set_logging_level`)."""
