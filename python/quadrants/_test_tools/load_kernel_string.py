# python/quadrants/_test_tools/load_kernel_string.py: load a kernel from source text, for tests whose
# kernels must live in a real file (the frontend reads a kernel's source through inspect).
import contextlib
import importlib.util
import pathlib
import sys
import tempfile


@contextlib.contextmanager
def load_kernel_from_string(source, kernel_name):
    """Writes `source` to <tmp>/<kernel_name>.py, imports it as module `kernel_name` and yields its
    attribute `kernel_name`; the module is forgotten and the file removed on exit."""
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / f"{kernel_name}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(kernel_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[kernel_name] = module
        try:
            spec.loader.exec_module(module)
            yield getattr(module, kernel_name)
        finally:
            sys.modules.pop(kernel_name, None)
