# python/quadrants/torch_ops.py: quadrants kernels as torch operators, visible to torch's graph and torch.compile.
import contextlib

from . import _core


@contextlib.contextmanager
def _kernels_skipped():
    _core.enter_fake_mode()
    try:
        yield
    finally:
        _core.exit_fake_mode()


def torch_op(name, *, mutates_args=(), device_types=None):
    """Registers a Python function that calls quadrants kernels as the torch operator `name`.

    The function must be fully type-annotated (torch.library's schema rules: Tensor, int, float, bool,
    lists of them; no void returns unless it only mutates arguments) and allocate its outputs with torch.
    The same function serves as the fake (meta) implementation: torch.compile traces it with fake tensors
    while kernels are skipped, so output shapes and dtypes come from the function's own allocations.

        @qd.torch_op("mylib::square")
        def square(x: torch.Tensor) -> torch.Tensor:
            out = torch.empty_like(x)
            square_kernel(x, out)
            return out

    Returns torch's CustomOpDef: call it like the function, and add a backward with
    `square.register_autograd(backward, setup_context=...)`.
    """
    import torch

    def register(fn):
        op = torch.library.custom_op(name, mutates_args=mutates_args, device_types=device_types)(fn)

        def fake(*args, **kwargs):
            with _kernels_skipped():
                return fn(*args, **kwargs)

        op.register_fake(fake)
        return op

    return register
