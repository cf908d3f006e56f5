# python/quadrants/frontend/buffer_views.py: qd.BufferView inside kernels: a compile-time view of a 1-D array.
#
# A view is never an IR value: it is the array's ArrayRef plus an offset and a size (IR expressions or ints), and
# `v[i]` is the array's element `offset + i`. A kernel parameter annotated qd.BufferView becomes three leaves (the
# ndarray and the i32 offset and size, read from the view at every call: compound_params.Leaf), so one compiled
# kernel serves views at any offset; `v[a:b]`, `v.subview(o, n)`, `arr[a:b]` of a 1-D array parameter and
# `qd.BufferView(arr, o, n)` make views in the kernel. In debug mode each access asserts 0 <= i < size, and each view
# made in the kernel that it lies inside its parent, with upstream's messages (kernel name, thread index, values,
# and the chain of inlined funcs that led there).
from quadrants.base.dtypes import i32
from quadrants.data.buffer_view import BufferView
from quadrants.frontend.compound_params import Leaf
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.sparse_access import FieldRef
from quadrants.frontend.values import ArrayRef, FormattedText, VectorValue
from quadrants.frontend.vector_ops import describe
from quadrants.types.buffer_view_type import BufferViewType


class ViewValue:
    """A qd.BufferView in a kernel: element i is array element offset + i, for 0 <= i < size."""

    __slots__ = ("array", "offset", "size")

    def __init__(self, array, offset, size):
        self.array = array
        self.offset = offset
        self.size = size


class ViewMethod:
    """`v.subview` before the call."""

    __slots__ = ("view",)

    def __init__(self, view):
        self.view = view


def is_view_annotation(annotation):
    """`qd.BufferView` (the element type taken from the argument) or `qd.BufferView[dtype]`."""
    return annotation is BufferView or isinstance(annotation, BufferViewType)


def view_type(annotation):
    """The BufferViewType of a view annotation (plain qd.BufferView: any element type, boundary "unsafe")."""
    return annotation if isinstance(annotation, BufferViewType) else BufferViewType()


class BufferViewTranslator:
    """Mixed into the Translator: views as kernel and func parameters, their indexing, slicing and attributes."""

    def view_argument(self, param, obj):
        """The ViewValue of a kernel parameter annotated qd.BufferView: leaves `name.arr`, `name.offset`, `name.size`
        (obj: the call's BufferView when translating for a call, else None: the leaves follow the launcher's plan)."""
        has_value = obj is not None  # a BufferView: KernelDefinition.check_struct_arguments saw to it
        name = param.name
        parts = {}
        for member, kind, annotation in (("arr", "array", view_type(param.annotation).ndarray_type),
                                         ("offset", "scalar", i32), ("size", "scalar", i32)):
            value = getattr(obj, member) if has_value else None
            if has_value:
                self.reads.member((name, member), value, True)
            parts[member] = self.leaf(Leaf((name, member), kind, annotation), value, has_value)
        return ViewValue(parts["arr"], parts["offset"], parts["size"])

    def check_view_argument(self, name, value):
        """A @qd.func parameter annotated qd.BufferView takes a view (upstream's words)."""
        if not isinstance(value, ViewValue):
            raise self.fail(f"Argument {name} expects a BufferView, got {describe(value)}")

    # ---- attributes, indexing --------------------------------------------------------------------
    def view_attribute(self, view, attr):
        if attr == "size":
            return view.size
        if attr == "shape":
            return (view.size,)
        if attr == "offset":
            return view.offset
        if attr == "subview":
            return ViewMethod(view)
        raise self.fail(f"a qd.BufferView has no attribute '{attr}' inside kernels", kind="type",
                        hint="views offer v[i], v[a:b], v.subview(offset, size), v.size, v.shape and v.offset.")

    def view_index(self, view, index):
        """The array index of `view[index]`: the first index shifted by the offset (checked in debug mode)."""
        if isinstance(index, tuple):
            parts = list(index)
        elif isinstance(index, VectorValue) and not index.is_matrix:
            parts = list(index.entries)
        else:
            parts = [index]
        if not parts or any(isinstance(p, slice) for p in parts):
            raise self.fail("BufferView only supports 1D slicing in kernels: index a view as v[i], slice it as v[a:b]")
        first = self.scalar(parts[0], "a qd.BufferView index")
        if self.config.debug:
            first = self.materialize(first) if isinstance(first, Expr) else first
            self.assert_view(
                [self.ops.bin("ge", first, 0), self.ops.bin("lt", first, view.size)],
                [f"BufferView Out Of Range: kernel[{self.kernel_name()}] tid=", self.thread_index(), ", got index ",
                 first, " (offset=", view.offset, ", size=", view.size, f").\nCallstack:\n{self.view_callstack()}"])
        shifted = self.ops.bin("add", view.offset, first)
        return tuple([shifted] + parts[1:]) if len(parts) > 1 else shifted

    # ---- views made in the kernel ------------------------------------------------------------------
    def view_slice(self, view, key):
        """`v[a:b]`: the sub-view of elements [a, b) of v (a negative constant bound counts from the end)."""
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if not isinstance(key, slice):
            raise self.fail("BufferView only supports 1D slicing in kernels")
        if key.step is not None:
            raise self.fail("BufferView slice does not support an explicit step in kernels")
        start = self._bound(key.start, 0, view.size)
        stop = self._bound(key.stop, view.size, view.size)
        return self.subview(view, start, self.ops.bin("sub", stop, start))

    def subview(self, view, offset, size):
        """The view of elements [offset, offset + size) of `view` (upstream's subview; checked in debug mode)."""
        offset, size = self._kept(offset, "offset"), self._kept(size, "size")
        if self.config.debug:
            self.assert_view(
                [self.ops.bin("ge", offset, 0), self.ops.bin("ge", size, 0),
                 self.ops.bin("le", self.ops.bin("add", offset, size), view.size)],
                [f"BufferView subview Out Of Range: kernel[{self.kernel_name()}] tid=", self.thread_index(),
                 ", subview offset=", offset, ", subview size=", size, ", parent size=", view.size,
                 f".\nCallstack:\n{self.view_callstack()}"])
        return ViewValue(view.array, self._kept(self.ops.bin("add", view.offset, offset), "offset"), size)

    def array_view(self, array, offset, size):
        """The view of elements [offset, offset + size) of a 1-D array (checked against its length in debug mode)."""
        if not isinstance(array, ArrayRef) or isinstance(array, FieldRef) or array.ndim != 1:
            what = describe(array) if not isinstance(array, ArrayRef) else f"array '{array.label}'"
            raise self.fail(f"a qd.BufferView views a 1-D ndarray, but got {what}", kind="type",
                            hint="pass a 1-D qd.types.ndarray() parameter.")
        offset, size = self._kept(offset, "offset"), self._kept(size, "size")
        if self.config.debug:
            length = Expr(f"(shape {array.name} 0)")
            self.assert_view(
                [self.ops.bin("ge", offset, 0), self.ops.bin("ge", size, 0),
                 self.ops.bin("le", self.ops.bin("add", offset, size), length)],
                ["BufferView construction out of range: offset=", offset, ", size=", size, ", ndarray length=",
                 length, "."])
        return ViewValue(array, offset, size)

    def array_slice(self, array, key):
        """`arr[a:b]` of a 1-D array parameter: the view of elements [a, b)."""
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if not isinstance(key, slice) or key.step is not None:
            raise self.fail("slicing an ndarray inside a kernel makes a qd.BufferView, which takes one slice a:b "
                            "without a step")
        length = Expr(f"(shape {array.name} 0)")
        start = self._bound(key.start, 0, length)
        stop = self._bound(key.stop, length, length)
        return self.array_view(array, start, self.ops.bin("sub", stop, start))

    def construct_view(self, args, kwargs):
        """`qd.BufferView(arr, offset, size)` in a kernel."""
        try:
            arr, offset, size = _view_arguments(*args, **kwargs)
        except TypeError as exc:  # Python's words for a call that does not fit the signature
            raise self.fail(f"qd.BufferView(arr, offset, size): {exc}", kind="type") from None
        if isinstance(arr, ViewValue):
            raise self.fail("qd.BufferView(view, ...) cannot view another view", kind="type",
                            hint="narrow it with view.subview(offset, size) or view[a:b].")
        return self.array_view(arr, self.scalar(offset, "a view's offset"), self.scalar(size, "a view's size"))

    def call_view_method(self, method, args, kwargs):
        """`v.subview(offset, size)`."""
        try:
            offset, size = _subview_arguments(*args, **kwargs)
        except TypeError as exc:
            raise self.fail(f"subview(offset, size): {exc}", kind="type") from None
        return self.subview(method.view, self.scalar(offset, "a subview's offset"),
                            self.scalar(size, "a subview's size"))

    # ---- helpers -----------------------------------------------------------------------------------
    def _bound(self, bound, default, length):
        if bound is None:
            return default
        bound = self.scalar(bound, "a slice bound")
        if isinstance(bound, int) and bound < 0:  # Python's rule for a constant negative bound
            return self.ops.bin("add", length, bound)
        return bound

    def _kept(self, value, what):
        """A view's offset or size as a value that later statements cannot change: a number, a parameter, or a
        new local holding the expression (a view bound to a name must not follow the locals it was made from)."""
        value = self.scalar(value, f"a view's {what}")
        if not isinstance(value, Expr) or value.text.startswith(("(arg ", "(const ")):
            return value
        name = self.names.fresh(f"_view_{what}")
        self.builder.emit(f"decl {name} {self.ops.text(value)}")
        return Expr(f"(var {name})")

    def assert_view(self, conditions, parts):
        """One debug-mode assert that all conditions hold (constant ones folded), with a message of parts."""
        kept = [c for c in conditions if not (isinstance(c, (bool, int)) and c)]
        if not kept:
            return
        if any(isinstance(c, (bool, int)) for c in kept):  # a condition known to be false: fails when it runs
            condition = Expr("(const i32 0)")
        else:
            condition = kept[0]
            for c in kept[1:]:
                condition = self.ops.bin("and", condition, c)
        self.builder.emit(f"assert {self.ops.text(condition)} {self.assert_message_items(FormattedText(parts))}")

    def thread_index(self):
        """The running iteration of the parallel loop (upstream's tid); 0 in serial code, which one thread runs."""
        if self.parallel_depth > 0 and not self.real_function_depth:
            return Expr("(simt global_thread_idx)")
        return 0

    def kernel_name(self):
        """The kernel being translated (the first function entered), as upstream's messages name it."""
        return self.entered[0][0].fn.__name__

    def view_callstack(self):
        """The kernel and each inlined func on the way to the node being translated, one per line, indented."""
        here = next((n for n in reversed(self.node_stack) if hasattr(n, "lineno")), None)
        frames = self.call_sites() + [(self.ctx.source, here)]
        return "\n".join(f"{'  ' * depth}{source.fn.__name__} ({source.filename}:{getattr(node, 'lineno', '?')})"
                         for depth, (source, node) in enumerate(frames))


def _view_arguments(arr, offset, size):
    return arr, offset, size


def _subview_arguments(offset, size):
    return offset, size
