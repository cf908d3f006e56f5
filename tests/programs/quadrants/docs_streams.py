# tests/programs/quadrants/docs_streams.py: qd.stream_parallel blocks, explicit streams and events.
# Adapted from upstream Quadrants' docs/source/user_guide/streams.md, "Stream parallelism", "Creating and
# using streams" and "Events" (Apache-2.0; see ../NOTICE). Changed: compute_a/compute_b (left to the
# reader there) defined; the fields saved. On the CPU, streams are ordered no-ops (as the page says).
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.cuda)

N = 1024
a = qd.field(qd.f32, shape=(N,))
b = qd.field(qd.f32, shape=(N,))
c = qd.field(qd.f32, shape=(N,))


@qd.func
def compute_a(i):
    return qd.sin(i * 0.01)


@qd.func
def compute_b(j):
    return qd.cos(j * 0.01)


@qd.kernel
def compute_ab():
    with qd.stream_parallel():
        for i in range(N):
            a[i] = compute_a(i)
    with qd.stream_parallel():
        for j in range(N):
            b[j] = compute_b(j)

@qd.kernel
def combine():
    for i in range(N):
        c[i] = a[i] + b[i]

compute_ab()  # the two stream_parallel blocks run concurrently
combine()     # runs after compute_ab() returns — a[] and b[] are ready
c_first = c.to_numpy()


@qd.kernel
def my_kernel():
    for i in range(N):
        a[i] = i

s1 = qd.create_stream()
s2 = qd.create_stream()

my_kernel(qd_stream=s1)
my_kernel(qd_stream=s2)

s1.synchronize()
s2.synchronize()

s1.destroy()
s2.destroy()

s1 = qd.create_stream()
s2 = qd.create_stream()

@qd.kernel
def produce():
    for i in range(N):
        a[i] = 10.0

@qd.kernel
def consume():
    for i in range(N):
        b[i] = a[i]

produce(qd_stream=s1)

e = qd.create_event()
e.record(s1)       # record when s1 finishes produce()
e.wait(qd_stream=s2)  # s2 waits for that event before proceeding

consume(qd_stream=s2)  # safe to read a[] — produce() is guaranteed complete
s2.synchronize()

e.destroy()
s1.destroy()
s2.destroy()
np.savez(
    os.environ.get("QD_PROGRAM_OUT", "docs_streams.npz"),
    c_first=c_first,
    a=a.to_numpy(),
    b=b.to_numpy(),
)
