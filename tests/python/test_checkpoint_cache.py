# tests/python/test_checkpoint_cache.py: @qd.kernel(graph=True, checkpoints=True) kernels come from the translation
# cache in a later process (kernels/translation_cache.py), and still yield, resume and report their checkpoints.
import json
import os
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent("""
    import enum
    import json
    import sys

    import numpy as np
    import quadrants as qd
    from quadrants.kernels import translation_cache


    class Stage(enum.IntEnum):
        LOAD = 10
        REDUCE = 20


    @qd.kernel(graph=True, checkpoints=True, fastcache=True)
    def staged(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0)):
        for i in range(x.shape[0]):  # an implicit checkpoint
            x[i] = x[i] + 1
        with qd.checkpoint(Stage.LOAD, yield_on=flag):
            for i in range(x.shape[0]):
                x[i] = x[i] + 10
        with qd.checkpoint(Stage.REDUCE, yield_on=flag):
            for i in range(x.shape[0]):
                x[i] = x[i] + 100


    @qd.data_oriented
    class Sim:
        def __init__(self):
            self.x = qd.ndarray(qd.i32, shape=(3,))
            self.flag = qd.ndarray(qd.i32, shape=())

        @qd.kernel(graph=True, checkpoints=True, fastcache=True)
        def step(self):
            with qd.checkpoint(0, yield_on=self.flag):
                for i in range(self.x.shape[0]):
                    self.x[i] = self.x[i] + 1


    qd.init(arch=qd.cpu)
    x = qd.ndarray(qd.i32, shape=(3,))
    flag = qd.ndarray(qd.i32, shape=())
    flag.from_numpy(np.array(1, np.int32))
    status = staged(x, flag)  # yields after LOAD
    flag.from_numpy(np.array(0, np.int32))
    staged.resume(x, flag, from_checkpoint=status.checkpoint)  # LOAD again, then REDUCE
    sim = Sim()
    sim.step()
    primal, sim_primal = staged._primal, type(sim).step._primal
    print(json.dumps({
        "x": x.to_numpy().tolist(), "sim": sim.x.to_numpy().tolist(), "yielded_at": repr(status.checkpoint),
        "labels": [repr(label) for label in primal.checkpoint_user_labels_by_cp_id],
        "ids": primal.checkpoint_yield_on_cpp_arg_ids, "sim_ids": sim_primal.checkpoint_yield_on_cpp_arg_ids,
        "loaded": [primal.src_ll_cache_observations.cache_loaded, sim_primal.src_ll_cache_observations.cache_loaded],
        "translated": translation_cache.stats["translated"],
    }))
""")


def test_a_checkpoints_kernel_is_translated_once_and_still_yields_and_resumes(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    env = dict(os.environ, QD_CACHE_DIR=str(tmp_path / "cache"), QD_TRANSLATION_CACHE="1")

    def run():
        done = subprocess.run([sys.executable, "program.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    cold, warm = run(), run()
    for result in (cold, warm):
        assert result["x"] == [121, 121, 121]  # 1 + 10, then resumed at LOAD: + 10 + 100
        assert result["sim"] == [1, 1, 1]
        assert result["yielded_at"] == "<Stage.LOAD: 10>"
        assert result["labels"] == ["None", "<Stage.LOAD: 10>", "<Stage.REDUCE: 20>"]
        assert result["ids"] == [-1, 1, 1]  # the flag's position among the params (x, flag, the resume index)
        assert len(result["sim_ids"]) == 1 and result["sim_ids"][0] >= 0  # self.flag among the leaves
    assert cold["sim_ids"] == warm["sim_ids"]
    assert cold["loaded"] == [False, False] and cold["translated"] >= 2
    assert warm["loaded"] == [True, True] and warm["translated"] == 0
