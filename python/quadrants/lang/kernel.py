# python/quadrants/lang/kernel.py: upstream's module quadrants.lang.kernel, for programs that import from it: the Kernel
# class (kernels/kernel.py) and transform_tree (frontend/translator.py).
#
# The attribute quadrants.lang.kernel stays the @qd.kernel decorator, as upstream's: lang/__init__.py imports this
# module before it binds that name, so only sys.modules["quadrants.lang.kernel"] reaches the module. Our kernels
# translate through frontend.translator.transform_tree, not through this module's name for it.
from quadrants.frontend.translator import transform_tree  # noqa: F401
from quadrants.kernels.kernel import Kernel  # noqa: F401

__all__ = ["Kernel", "transform_tree"]
