# python/quadrants/frontend/read_hooks.py: what the translator reports about the Python values it reads.
#
# The translation cache (kernels/translation_cache.py) keeps a kernel's IR across processes and must know every
# Python value the translation depended on, to check them again before it reuses the IR. The translator calls
# these hooks at the few places where a Python value enters a translation: a free name resolved, an attribute
# read, a member of a dataclass or data_oriented argument read, a compile-time call or operator on Python values,
# a container bound as a global, a function whose body is translated. This base class records nothing: it is
# what a translation outside the cache (Kernel.ir(), export_ir()) reports to.


class ReadHooks:
    """The recorder interface; every method is a no-op here. The translator holds one as `tr.reads`."""

    def name(self, fn, where, name, value):
        """A free name of the Python function `fn` was resolved: where is 'closure', 'global' or 'builtin'."""

    def attribute(self, base, attr, value):
        """`base.attr` of a compile-time Python value was read and gave `value`."""

    def member(self, path, value, leaf):
        """The member at `path` (parameter name, then attribute names) of a dataclass or data_oriented argument was
        read; leaf: it becomes a runtime parameter read at every call, so only its kind matters."""

    def class_attribute(self, cls, attr, value):
        """An attribute of a dataclass parameter's class that is not one of its members."""

    def operation(self, fn, operands):
        """A Python operator, item access or iteration `fn(*operands)` on compile-time values, about to run."""

    def call(self, func, args, kwargs):
        """A Python callable that is no kernel construct, about to be called on compile-time values."""

    def container(self, container):
        """A field or ndarray became a global of the kernel (in the order they are appended to its IR params)."""

    def function(self, source):
        """The body of a function (the kernel's, a func's, an inlined plain function's; a FunctionSource) is
        translated."""

    def uncacheable(self, reason):
        """The translation did something a replay would miss (printed, warned): it must not be cached."""


NO_HOOKS = ReadHooks()
