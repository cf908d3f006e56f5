# examples/distributed.py: quadrants kernels in 2 torch.distributed processes (gloo, CPU): an all_reduce of
# per-rank partial results, and a DistributedDataParallel training step through a kernel.
#
# Each rank holds half of the data. (1) A kernel computes the rank's partial sum of x * w(x); all_reduce
# adds the partials, and every rank checks the total against the whole data set computed by numpy.
# (2) A model whose forward is a kernel made a torch operator (qd.autograd_op, backward derived by
# quadrants' autodiff) is wrapped in DDP; after one backward pass DDP has averaged the gradients, and
# every rank checks them against the gradient of the full batch computed with plain torch operations.
# Kernels are defined at module top level: the spawned processes import this module to find them.
import argparse
import gc
import json
import os
import sys
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import quadrants as qd

WORLD_SIZE, COUNT = 2, 10_000


@qd.kernel
def weighted_sum(x: qd.types.ndarray(dtype=qd.f64, ndim=1)) -> qd.f64:
    total = qd.f64(0.0)  # a bare 0.0 would be default_fp, float32
    for i in x:
        total += x[i] * qd.exp(-x[i] * x[i])
    return total


@qd.kernel
def affine(x: qd.types.ndarray(), w: qd.types.ndarray(), y: qd.types.ndarray()):
    for i in x:
        y[i] = w[0] * x[i] + w[1]


affine_op = qd.autograd_op(affine, outputs={"y": "x"}, name="gallery::affine")


class Line(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([0.5, -0.25], dtype=torch.float32))

    def forward(self, x):
        return affine_op(x, self.w)


def full_data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=COUNT)
    return x, 3.0 * x + 1.0 + 0.1 * rng.normal(size=COUNT)


def run_rank(rank, store_path, result_path):
    dist.init_process_group("gloo", init_method=f"file://{store_path}", rank=rank, world_size=WORLD_SIZE)
    qd.init(arch=qd.cpu)
    x, target = full_data()
    shard = slice(rank * COUNT // WORLD_SIZE, (rank + 1) * COUNT // WORLD_SIZE)

    # (1) partial results combined with all_reduce
    total = torch.tensor([weighted_sum(x[shard].copy())], dtype=torch.float64)
    dist.all_reduce(total, op=dist.ReduceOp.SUM)
    expected_total = float(np.sum(x * np.exp(-x * x)))
    assert abs(total.item() - expected_total) < 1e-9 * abs(expected_total), (total.item(), expected_total)

    # (2) one DDP step: each rank's gradient is of its half; DDP averages them
    model = torch.nn.parallel.DistributedDataParallel(Line())
    xs = torch.tensor(x[shard], dtype=torch.float32)
    ts = torch.tensor(target[shard], dtype=torch.float32)
    loss = (model(xs) - ts).square().mean()
    loss.backward()
    reference = Line()
    full_x, full_t = torch.tensor(x, dtype=torch.float32), torch.tensor(target, dtype=torch.float32)
    (reference.w[0] * full_x + reference.w[1] - full_t).square().mean().backward()
    grad = model.module.w.grad
    assert torch.allclose(grad, reference.w.grad, rtol=1e-4, atol=1e-5), (grad, reference.w.grad)

    if rank == 0:
        with open(result_path, "w") as f:
            json.dump({"total": total.item(), "expected_total": expected_total,
                       "ddp_grad": grad.tolist(), "full_batch_grad": reference.w.grad.tolist()}, f)
    # DDP's reducer and the autograd graph hold the process group; while they live, destroy_process_group
    # only drops a name and gloo's threads die at interpreter exit, which can abort the process. Free them
    # first, and let both ranks arrive before either tears its connections down.
    del model, loss, grad
    gc.collect()
    dist.barrier()
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=None, help="write rank 0's results as JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result_path = args.out or os.path.join(tmp, "result.json")
        mp.spawn(run_rank, args=(os.path.join(tmp, "store"), result_path), nprocs=WORLD_SIZE, join=True)
        with open(result_path) as f:
            result = json.load(f)
    print(f"all_reduce of {WORLD_SIZE} partial sums: {result['total']:.9f} (numpy on all data: {result['expected_total']:.9f})")
    print(f"DDP gradient {np.round(result['ddp_grad'], 5)} == full-batch gradient {np.round(result['full_batch_grad'], 5)}")


if __name__ == "__main__":
    sys.exit(main())
