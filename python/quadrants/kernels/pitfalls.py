# python/quadrants/kernels/pitfalls.py: one-time warnings about calls that work but are silently wrong or slow.
#
# Checked when a kernel meets a new argument specialization, never on the per-call path: the common
# mistakes (a float64 numpy array among float32 data; a tensor that requires grad passed while
# autograd is recording) show up on the first call.
import sys
import warnings

from quadrants.base import registry
from quadrants.runtime import _core


class PrecisionWarning(UserWarning):
    """float64 data met float32 data in one kernel call, or a statement stores a value into a narrower type."""


_source_warnings_shown = set()  # (file, line, message): each shown once per process, however often it compiles


def warn_about_source(kernel_name, compiled_warnings, line_sources):
    """Compile-time warnings about a kernel's statements (e.g. upstream's "Assign may lose precision: f32 <- f64"),
    shown at the statement's own file and line."""
    for message, line, _col in compiled_warnings:
        source = line_sources.get(line)
        filename = source.filename if source is not None else "<kernel>"
        if (filename, line, message) in _source_warnings_shown:
            continue
        _source_warnings_shown.add((filename, line, message))
        hint = (" The value is converted to the narrower type, so digits are lost silently; give the target the "
                "wider type (e.g. a local declared as qd.f64(0.0), where a plain 0.0 is default_fp) or cast the "
                "value explicitly.")
        warnings.warn_explicit(f"Kernel '{kernel_name}': {message}.{hint}", PrecisionWarning, filename, line)


class AutogradWarning(UserWarning):
    """A kernel ran on tensors that require grad while autograd was recording."""


def warn_about_pitfalls(kernel_name, params, spec, args, stacklevel):
    """params: the launcher's parameter tuples; spec: the specialization; args: this call's arguments."""
    arrays = [(p[1], s[1]) for p, s in zip(params, spec) if p[0] == "array"]
    f64 = [name for name, dtype in arrays if dtype == "f64"]
    f32 = [name for name, dtype in arrays if dtype in ("f32", "f16")]
    if f64 and f32:
        warnings.warn(
            f"Kernel '{kernel_name}' got float64 array(s) {_names(f64)} together with float32 array(s) "
            f"{_names(f32)}. numpy and Python floats default to float64 while torch and quadrants use "
            f"float32, so this is usually an accident that doubles memory traffic; create the arrays with "
            f"dtype=np.float32 (or annotate the parameter dtype=qd.f32 to get an error instead).",
            PrecisionWarning,
            stacklevel=stacklevel,
        )
    torch = sys.modules.get("torch")
    if torch is None:
        return
    needing_grad = [p[1] for p, a in zip(params, args) if isinstance(a, torch.Tensor) and a.requires_grad]
    if needing_grad:
        _give_torch_tensors_grads(torch, args)
    if not torch.is_grad_enabled():
        return

    if registry.get("recording_tape")() is not None:  # under qd.ad.Tape, tensors that require grad are how gradients are asked for
        return
    if needing_grad:
        warnings.warn(
            f"Kernel '{kernel_name}' got tensor(s) {_names(needing_grad)} that require grad while autograd is "
            f"recording. Autograd cannot see a kernel called directly, so no gradient flows through this call. "
            f"Make it a torch op with qd.autograd_op(kernel, outputs=...) to train through it (its backward "
            f"is the kernel's derived adjoint), or call it under torch.no_grad() for inference, which also "
            f"saves memory.",
            AutogradWarning,
            stacklevel=stacklevel,
        )


def _give_torch_tensors_grads(torch, args):
    """As upstream, a kernel gives a tensor that requires grad a zero .grad (kernel.grad() accumulates into it).
    This call's tensors get theirs here; later launches check in C++, which is switched on now, so programs
    that never pass such tensors never pay for reading requires_grad."""
    for a in args:
        if isinstance(a, torch.Tensor) and a.requires_grad:
            registry.get("torch_grad")(a)
    _core.register_torch_grad_hook(registry.get("torch_grad"))


def _names(names):
    return ", ".join(f"'{n}'" for n in names)
