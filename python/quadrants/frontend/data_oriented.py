# python/quadrants/frontend/data_oriented.py: @qd.data_oriented, and how kernels recognize compound objects.
#
# A data_oriented class holds fields, ndarrays and Python values as plain attributes and defines
# @qd.kernel / @qd.func methods; the instance is the methods' `self`, a compile-time (template)
# argument. The decorator only marks the class: kernels bind `self` themselves (Kernel.__get__).
import dataclasses

from quadrants.frontend.funcs import is_kernel
from quadrants.runtime import _core


def data_oriented(cls=None, *, template_primitives=True):
    """Marks a class whose instances kernels take as `self` or as qd.template() arguments.

    template_primitives=True (the default) bakes the int/float/bool members a kernel reads into it as
    constants: each instance compiles its own kernel, and changing such a member after the first call
    has no effect. False makes them runtime arguments instead, read again on every call. As upstream, only the
    class of the object the kernel takes counts: the objects nested in it follow it, whatever their own class says.
    """

    def decorate(klass):
        klass._data_oriented = True
        klass._qd_template_primitives = bool(template_primitives)
        _hold_kernel_methods(klass)
        return klass

    return decorate if cls is None else decorate(cls)


def _hold_kernel_methods(klass):
    """Each kernel method goes into a KernelMethod (src/bindings/kernel_method.cpp): `obj.kernel(...)` calls it as
    a bound method would, and `obj.kernel.grad(...)` runs its adjoint for obj, as upstream."""
    for name, value in list(vars(klass).items()):
        code = getattr(getattr(value, "__wrapped__", value), "__code__", None)
        if is_kernel(value) and code is not None and code.co_argcount and code.co_varnames[0] == "self":
            setattr(klass, name, _core.KernelMethod(value))


def is_data_oriented(value):
    """Whether `value` is an instance of a @qd.data_oriented class."""
    return getattr(type(value), "_data_oriented", False) is True


def is_compound(value):
    """Instances whose members a kernel reads one by one: data_oriented objects and dataclass instances."""
    if isinstance(value, type):
        return False
    return is_data_oriented(value) or dataclasses.is_dataclass(value)


def bakes_primitives(value):
    """False for instances of @qd.data_oriented(template_primitives=False) classes."""
    return getattr(type(value), "_qd_template_primitives", True) is not False
