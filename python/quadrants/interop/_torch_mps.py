# python/quadrants/interop/_torch_mps.py: upstream's qd.interop.get_mps_command_queue(), for sharing PyTorch's
# Metal (MPS) command queue; quadrants has no Metal backend, so there is never a queue to share.


def get_mps_command_queue():
    """PyTorch MPS's MTLCommandQueue* as an int, or 0 where there is none to share, as upstream returns off macOS.

    Upstream documents 0 as "no queue" (no macOS, no torch, an unsupported torch build) and callers fall back to
    explicit synchronisation on it. Quadrants runs kernels on the CPU and CUDA only, never on a Metal queue, so 0 is
    always the answer: a program that asks keeps working as it does upstream on Linux.
    """
    return 0
