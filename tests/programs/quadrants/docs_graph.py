# tests/programs/quadrants/docs_graph.py: graph=True kernels and a counter-driven qd.graph.do_while loop.
# Adapted from upstream Quadrants' docs/source/user_guide/graph.md, "Basic usage" and "GPU-side iteration"
# (Apache-2.0; see ../NOTICE). Changed: the imports, qd.init and N added; the arrays saved.
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.gpu)
N = 1024


@qd.kernel(graph=True)
def my_kernel(
    x: qd.types.ndarray(qd.f32, ndim=1),
    y: qd.types.ndarray(qd.f32, ndim=1),
):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0
    for i in range(y.shape[0]):
        y[i] = y[i] + 2.0


x = qd.ndarray(qd.f32, shape=(1024,))
y = qd.ndarray(qd.f32, shape=(1024,))

my_kernel(x, y)  # first call: builds and caches the graph
my_kernel(x, y)  # subsequent calls: replays the cached graph


@qd.kernel(graph=True)
def solve(x: qd.types.ndarray(qd.f32, ndim=1),
          counter: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(counter):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1.0
        counter[()] = counter[()] - 1   # bare statement: runs every iteration

x2 = qd.ndarray(qd.f32, shape=(N,))
counter = qd.ndarray(qd.i32, shape=())
counter.from_numpy(np.array(10, dtype=np.int32))
solve(x2, counter)
# x is now incremented 10 times; counter is 0
np.savez(
    os.environ.get("QD_PROGRAM_OUT", "docs_graph.npz"),
    x=x.to_numpy(),
    y=y.to_numpy(),
    x2=x2.to_numpy(),
    counter=counter.to_numpy(),
)
