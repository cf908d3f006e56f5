# benchmarks/peers/workloads.py: the workload names, in report order, shared by run.py, report.py and the workers.
# Standard library only, so the orchestrator can import it without numpy.

# Measured inside one worker process per framework and round.
WORKLOADS = ["launch", "launch_numpy", "triad", "mandelbrot", "diffusion", "histogram", "from_numpy", "to_numpy",
             "grad"]
# Each measured in a fresh process of its own: a cold one with an empty kernel cache, then a warm one.
COMPILE_MODES = ["compile_cold", "compile_warm"]
