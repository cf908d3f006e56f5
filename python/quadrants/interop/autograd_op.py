# python/quadrants/interop/autograd_op.py: qd.autograd_op turns a kernel into a torch operator whose backward is the
# kernel's derived adjoint (src/passes/reverse_ad.cpp): no hand-written backward kernel.
#
# Two torch.library custom ops are registered per kernel: NAME runs the kernel on zero-filled outputs it
# allocates, and NAME_backward runs the adjoint. The backward being an op of its own (with a fake
# implementation) lets torch.compile / AOTAutograd trace the backward graph without running kernels.
import inspect
import itertools

from quadrants.ad._adjoint import adjoint_launchers
from quadrants.runtime import init as _runtime

_SCALAR_SCHEMA = {"f": "float", "i": "int", "u": "int", "b": "bool"}
_counter = itertools.count()


class _Param:
    """One kernel parameter as the op sees it: a tensor or a scalar of the op's schema, or an output."""

    def __init__(self, name, schema_type, output=None, needs_grad=None, default=inspect.Parameter.empty):
        self.name = name
        self.schema_type = schema_type  # "Tensor", "float", "int", "bool"
        self.output = output  # for outputs: how to allocate it (an input name, a shape tuple or a callable)
        self.needs_grad = needs_grad  # qd.types.ndarray(needs_grad=False): no gradient for this input
        self.default = default  # a scalar's default value in the kernel's signature: the op's default too

    def schema(self, with_default=True):
        if not with_default or self.default is inspect.Parameter.empty:
            return f"{self.schema_type} {self.name}"
        return f"{self.schema_type} {self.name}={self.default!r}"


def autograd_op(kernel, outputs, name=None):
    """A torch operator computing `kernel`'s outputs, differentiable through the kernel's derived adjoint.

    - kernel: a @qd.kernel whose parameters are qd.types.ndarray() arrays and scalars (no templates).
    - outputs: {parameter name: allocation} for the arrays the kernel writes; the op allocates them
      zero-filled and returns them (one tensor, or a tuple in this order). An allocation is the name of an
      input array (same shape, dtype and device), a shape tuple (dtype and device of the first float input),
      or a callable that takes inputs by parameter name and returns a tensor (`lambda x: x.new_zeros(())`).
    - name: the torch operator's qualified name, "namespace::name" (default: quadrants::<kernel name>_<n>).

    The op takes the kernel's other parameters, in order or by name (a scalar's default is the op's default),
    and returns its outputs; gradients flow to every float tensor input that requires grad. It passes
    torch.autograd.gradcheck and torch.library.opcheck and works under torch.compile::

        @qd.kernel
        def affine(x: qd.types.ndarray(), w: qd.types.ndarray(), y: qd.types.ndarray()):
            for i in x:
                y[i] = w[0] * x[i] + w[1]

        op = qd.autograd_op(affine, outputs={"y": "x"})
        y = op(x, w)          # y.sum().backward() fills x.grad and w.grad
    """
    import torch

    if not hasattr(kernel, "definition") or not callable(kernel):
        raise TypeError(f"qd.autograd_op() takes a @qd.kernel, but got {type(kernel).__name__}.")
    params = _op_params(kernel, outputs)
    inputs = [p for p in params if p.output is None]
    results = [p for p in params if p.output is not None]
    name = name or f"quadrants::{kernel.fn.__name__}_{next(_counter)}"
    if "::" not in name:
        raise ValueError(f"qd.autograd_op(name=...) expects a qualified name 'namespace::name', but got {name!r}.")
    float_inputs = [k for k, p in enumerate(inputs) if p.schema_type == "Tensor"]
    forward_schema = _schema(inputs, len(results))
    backward_schema = _schema(inputs + [_Param(f"out_{p.name}", "Tensor") for p in results] +
                              [_Param(f"grad_{p.name}", "Tensor") for p in results], None)

    allocators = [_allocator(p.output, inputs) for p in results]

    def allocate(args):
        return [make(args) for make in allocators]

    signature = inspect.Signature([inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=p.default)
                                   for p in inputs])

    def positional(args, kwargs):
        """The op's arguments in order: torch's dispatcher leaves out those equal to their defaults."""
        if not kwargs and len(args) == len(inputs):
            return args
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def forward(*args, **kwargs):
        args = positional(args, kwargs)
        outs = allocate(args)
        kernel(*_kernel_args(params, _detached(args), outs))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def forward_fake(*args, **kwargs):
        outs = allocate(positional(args, kwargs))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def backward(*args):
        primal, outs, grads = args[:len(inputs)], args[len(inputs):len(inputs) + len(results)], args[-len(results):]
        primal = _detached(primal)
        input_grads = {k: torch.zeros_like(primal[k]) for k in float_inputs}
        # The adjoint zeroes an output's gradient where the kernel stored to it, so it gets copies of torch's.
        output_grads = [g.detach().contiguous().clone() if g.is_floating_point() else None for g in grads]
        explicit = [input_grads[k] if k in input_grads and _differentiable(primal[k], inputs[k]) else None
                    for k in range(len(inputs))] + output_grads
        ordered = _kernel_args(params, explicit[:len(inputs)], explicit[len(inputs):])
        adjoint_launchers(kernel)(tuple(_kernel_args(params, primal, [o.detach() for o in outs])), ordered)
        return [input_grads[k] for k in float_inputs]

    def backward_fake(*args):
        return [torch.zeros_like(args[k]) for k in float_inputs]

    op = torch.library.custom_op(name, forward, mutates_args=(), schema=forward_schema)
    op.register_fake(forward_fake)
    backward_op = torch.library.custom_op(name + "_backward", backward, mutates_args=(), schema=backward_schema)
    backward_op.register_fake(backward_fake)

    def setup_context(ctx, inputs, output):  # torch passes these by keyword
        outs = (output,) if len(results) == 1 else tuple(output)
        ctx.scalars = {k: v for k, v in enumerate(inputs) if k not in float_inputs}
        ctx.save_for_backward(*[inputs[k] for k in float_inputs], *outs)

    def autograd_backward(ctx, *grad_outputs):
        saved = ctx.saved_tensors
        tensors = dict(zip(float_inputs, saved[:len(float_inputs)]))
        outs = saved[len(float_inputs):]
        primal = [tensors[k] if k in tensors else ctx.scalars[k] for k in range(len(inputs))]
        grads = [torch.zeros_like(o) if g is None else g for o, g in zip(outs, grad_outputs)]
        input_grads = backward_op(*primal, *outs, *grads)
        by_position = dict(zip(float_inputs, input_grads))
        # torch's dispatcher drops trailing arguments equal to their defaults (scalars): one gradient per one given
        return tuple(by_position.get(k) if ctx.needs_input_grad[k] else None for k in range(len(ctx.needs_input_grad)))

    op.register_autograd(autograd_backward, setup_context=setup_context)
    op.kernel = kernel
    return op


def _op_params(kernel, outputs):
    """The kernel's parameters with their schema types; outputs checked against the signature."""
    if not isinstance(outputs, dict) or not outputs:
        raise TypeError("qd.autograd_op(outputs=...) expects a dict {parameter name: allocation} naming at least one "
                        f"output array, but got {outputs!r}.")
    definition = kernel.definition
    names = [p.name for p in definition.params]
    for out in outputs:
        if out not in names:
            raise ValueError(f"qd.autograd_op(outputs=...) names '{out}', which is not a parameter of kernel "
                             f"'{kernel.fn.__name__}' (its parameters: {', '.join(names)}).")
    params = []
    defaults = {n: q.default for n, q in inspect.signature(definition.fn).parameters.items()}
    for p in definition.params:
        if p.kind == "array":
            params.append(_Param(p.name, "Tensor", outputs.get(p.name), getattr(p.annotation, "needs_grad", None)))
        elif p.kind == "scalar" and p.name not in outputs:
            params.append(_Param(p.name, _scalar_schema(p.annotation), default=defaults[p.name]))
        else:
            what = "an output" if p.name in outputs else "a parameter"
            raise TypeError(f"qd.autograd_op(): {what} '{p.name}' of kernel '{kernel.fn.__name__}' is a {p.kind}; the "
                            "op takes arrays (qd.types.ndarray()) and scalars only, and outputs must be arrays.")
    for p in params:
        if isinstance(p.output, str) and p.output not in [q.name for q in params if q.output is None and
                                                          q.schema_type == "Tensor"]:
            raise ValueError(f"qd.autograd_op(outputs=...): output '{p.name}' is allocated like '{p.output}', which "
                             "is not an input array of the kernel.")
    return params


def _scalar_schema(annotation):
    dtype = _runtime.cook_dtype(annotation)
    return _SCALAR_SCHEMA["b" if dtype.name == "u1" else dtype.numpy.kind]


def _schema(params, n_results):
    """The op's schema; n_results None: a list of tensors (the backward's input gradients), which torch always
    calls with every argument, so only the forward's schema has defaults."""
    args = ", ".join(p.schema(n_results is not None) for p in params)
    returns = "Tensor[]" if n_results is None else "Tensor" if n_results == 1 else \
        f"({', '.join(['Tensor'] * n_results)})"
    return f"({args}) -> {returns}"


def _allocator(how, inputs):
    """A function of the op's arguments that allocates one output, zero-filled; checked and prepared once, at
    registration (the callable's accepted names too), so a call does no inspection."""
    import torch

    names = [p.name for p in inputs]
    if isinstance(how, str):
        k = names.index(how)
        return lambda args: torch.zeros_like(args[k])
    if isinstance(how, tuple):
        def like_first_float(args):
            like = next((a for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()), None)
            if like is None:
                raise ValueError("qd.autograd_op(): an output given as a shape takes the dtype of the first float "
                                 "input array, and there is none; give a callable instead.")
            return torch.zeros(how, dtype=like.dtype, device=like.device)

        return like_first_float
    if callable(how):
        accepted = inspect.signature(how).parameters
        takes_all = any(p.kind == p.VAR_KEYWORD for p in accepted.values())
        wanted = [(k, n) for k, n in enumerate(names) if takes_all or n in accepted]

        def from_callable(args):
            result = how(**{n: args[k] for k, n in wanted})
            if not isinstance(result, torch.Tensor):
                raise TypeError(f"qd.autograd_op(): an output's allocation callable must return a torch.Tensor, but "
                                f"returned {type(result).__name__}.")
            return result.zero_()

        return from_callable
    raise TypeError(f"qd.autograd_op(outputs=...): an allocation is an input name, a shape tuple or a callable, "
                    f"but got {how!r}.")


def _differentiable(tensor, param):
    """Integer tensors (indices, counts) and arrays annotated needs_grad=False get no gradient (zeros)."""
    return tensor.is_floating_point() and param.needs_grad is not False


def _detached(args):
    import torch

    return [a.detach() if isinstance(a, torch.Tensor) else a for a in args]


def _kernel_args(params, inputs, outs):
    """The kernel's arguments in its parameter order, from the op's inputs and outputs."""
    inputs, outs = iter(inputs), iter(outs)
    return [next(outs) if p.output is not None else next(inputs) for p in params]
