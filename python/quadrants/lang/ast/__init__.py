# python/quadrants/lang/ast/__init__.py: upstream's package path quadrants.lang.ast, for compatibility only.
