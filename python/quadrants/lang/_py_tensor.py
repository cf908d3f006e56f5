# python/quadrants/lang/_py_tensor.py: upstream's quadrants.lang._py_tensor (interop/py_tensor.py); needs torch.
from quadrants.interop.py_tensor import PyTensor, create_tensor  # noqa: F401

__all__ = ["PyTensor", "create_tensor"]
