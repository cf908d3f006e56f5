# python/quadrants/lang/_py_tensor.py: upstream's quadrants.lang._py_tensor (interop/py_tensor.py); needs torch.
from quadrants.interop.py_tensor import tensor_class

PyTensor = tensor_class()  # the one class the python backend's fields and ndarrays are instances of
create_tensor = PyTensor.create

__all__ = ["PyTensor", "create_tensor"]
