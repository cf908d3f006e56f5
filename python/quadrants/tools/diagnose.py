# python/quadrants/tools/diagnose.py: qd.tools.diagnose.main(): prints what a bug report needs about this machine:
# Python, the platform, QD_* settings, which backends quadrants can use here, and the GPU (nvidia-smi).
import os
import platform
import subprocess
import sys

from quadrants.runtime import _core


def _command_output(command):
    try:
        return subprocess.check_output(command, stderr=subprocess.STDOUT, timeout=30).decode(errors="replace")
    except (OSError, subprocess.SubprocessError) as error:
        return f"`{command[0]}` not available: {error}\n"


def main():
    """Prints the diagnosis."""
    print("Quadrants system diagnose:\n")
    print(f"python: {sys.version}")
    print(f"system: {sys.platform}")
    print(f"executable: {sys.executable}")
    print(f"platform: {platform.platform()}")
    print(f"architecture: {' '.join(platform.architecture())}")
    print(f"uname: {platform.uname()}")
    print(f"PATH: {os.environ.get('PATH')}")
    print(f"PYTHONPATH: {sys.path}\n")
    for name, value in sorted(os.environ.items()):
        if name.startswith("QD_"):
            print(f"{name}={value}")
    print()
    print("cpu: True")
    cuda_status = _core.cuda_status()
    print(f"cuda: {cuda_status == ''}" + (f" ({cuda_status})" if cuda_status else ""))
    for arch in ("metal", "vulkan", "amdgpu"):
        print(f"{arch}: False (no {arch} backend in quadrants)")
    print()
    print(_command_output(["nvidia-smi"]))


__all__ = ["main"]
