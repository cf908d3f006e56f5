# tests/python/test_seed_copy_examples.py: the copy-based examples of seed 001, run verbatim in one namespace.
import warnings

import pytest

import quadrants as qd

# The snippets below are copied character for character from /work/shared/seeds/001 ("Copy-based
# interop"); the page runs them one after another, so later snippets use names from earlier ones.
FIELDS_NUMPY = """\
import numpy as np
import quadrants as qd

qd.init(arch=qd.gpu)

f = qd.field(qd.f32, shape=(4, 4))

# numpy -> field
arr = np.ones((4, 4), dtype=np.float32) * 3.0
f.from_numpy(arr)

# field -> numpy
result = f.to_numpy()
print(result[0, 0])  # 3.0
"""

FIELDS_TORCH = """\
import torch

f = qd.field(qd.f32, shape=(4, 4))

# torch -> field
t = torch.ones(4, 4, dtype=torch.float32) * 5.0
f.from_torch(t)

# field -> torch
result = f.to_torch(device="cpu")
print(result[0, 0])  # 5.0
"""

NDARRAYS = """\
a = qd.ndarray(qd.i32, shape=(10,))

# numpy -> ndarray
arr = np.arange(10, dtype=np.int32)
a.from_numpy(arr)

# ndarray -> numpy
result = a.to_numpy()
"""

SHAPE_REQUIREMENTS = """\
# A field of 3x2 matrices with shape (4,) has numpy shape (4, 3, 2)
m = qd.Matrix.field(3, 2, qd.f32, shape=(4,))
arr = np.zeros((4, 3, 2), dtype=np.float32)
m.from_numpy(arr)
"""


@pytest.fixture
def page(capsys):
    """Runs snippets in one shared namespace and returns what each printed."""
    namespace = {}

    def run(snippet):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # qd.gpu's CPU fallback note
            exec(compile(snippet, "seed_001", "exec"), namespace)
        return capsys.readouterr().out, namespace

    yield run
    qd.reset()


def test_fields_with_numpy(page):
    out, names = page(FIELDS_NUMPY)
    assert out == "3.0\n"
    assert names["result"].shape == (4, 4) and (names["result"] == 3.0).all()


def test_fields_with_torch(page):
    page(FIELDS_NUMPY)
    out, names = page(FIELDS_TORCH)
    assert out == "tensor(5.)\n"  # torch prints a 0-d tensor, the value the seed's comment gives
    assert names["result"].device.type == "cpu"
    assert bool((names["result"] == 5.0).all())


def test_ndarrays_with_numpy(page):
    page(FIELDS_NUMPY)
    out, names = page(NDARRAYS)
    assert out == ""
    assert names["result"].tolist() == list(range(10))
    assert str(names["result"].dtype) == "int32"


def test_matrix_field_shape_requirement(page):
    page(FIELDS_NUMPY)
    out, names = page(SHAPE_REQUIREMENTS)
    assert out == ""
    assert names["m"].to_numpy().shape == (4, 3, 2)


def test_the_whole_page_in_order(page):
    outputs = [page(snippet)[0] for snippet in (FIELDS_NUMPY, FIELDS_TORCH, NDARRAYS, SHAPE_REQUIREMENTS)]
    assert outputs == ["3.0\n", "tensor(5.)\n", "", ""]
