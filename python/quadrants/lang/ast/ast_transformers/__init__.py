# python/quadrants/lang/ast/ast_transformers/__init__.py: upstream's package path, for compatibility only.
