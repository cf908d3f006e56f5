# python/quadrants/frontend/__init__.py: the frontend floor: kernel and func source translated to IR (docs/IR.md).
