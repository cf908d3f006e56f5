# tests/python/test_ir_load_envs.py: upstream's QD_LOAD_IR / QUADRANTS_LOAD_PTX are refused while a cache is on,
# and warned about (quadrants never reads them) when caching is off.
import warnings

import pytest

import quadrants as qd
from quadrants.lang import misc
from quadrants.runtime import ir_load_envs, options


@pytest.fixture
def clean_env(monkeypatch):
    monkeypatch.delenv("QD_LOAD_IR", raising=False)
    monkeypatch.delenv("QUADRANTS_LOAD_PTX", raising=False)
    monkeypatch.setattr(options, "_warned", set())
    yield monkeypatch
    monkeypatch.delenv("QD_LOAD_IR", raising=False)  # before monkeypatch's own undo, which runs after this
    monkeypatch.delenv("QUADRANTS_LOAD_PTX", raising=False)
    qd.init(arch=qd.cpu)


def test_init_refuses_load_ir_with_a_cache(clean_env):
    clean_env.setenv("QD_LOAD_IR", "1")
    with pytest.raises(ValueError, match=r"Caching must be disabled when using QD_LOAD_IR.*offline_cache=False"):
        qd.init(arch=qd.cpu, offline_cache=True, src_ll_cache=False)
    with pytest.raises(ValueError, match="QD_LOAD_IR"):
        qd.init(arch=qd.cpu, offline_cache=False)  # src_ll_cache defaults to True, as upstream's


def test_init_warns_once_without_caches(clean_env):
    clean_env.setenv("QD_LOAD_IR", "1")
    with pytest.warns(UserWarning, match="reads no replacement IR/PTX"):
        qd.init(arch=qd.cpu, offline_cache=False, src_ll_cache=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qd.init(arch=qd.cpu, offline_cache=False, src_ll_cache=False)


@pytest.mark.parametrize("value", ["0", ""])
def test_zero_or_empty_is_off(clean_env, value):
    clean_env.setenv("QD_LOAD_IR", value)
    clean_env.setenv("QUADRANTS_LOAD_PTX", value)
    assert ir_load_envs.active_variables(qd.cuda) == []
    qd.init(arch=qd.cpu, offline_cache=True)


class _Cfg:
    def __init__(self, arch, offline_cache=True):
        self.arch = arch
        self.offline_cache = offline_cache


def test_which_archs_read_which_variable(clean_env):
    clean_env.setenv("QD_LOAD_IR", "1")
    clean_env.setenv("QUADRANTS_LOAD_PTX", "1")
    assert ir_load_envs.active_variables(qd.cpu) == ["QD_LOAD_IR"]
    assert ir_load_envs.active_variables(qd.amdgpu) == ["QD_LOAD_IR"]
    assert ir_load_envs.active_variables(qd.cuda) == ["QD_LOAD_IR", "QUADRANTS_LOAD_PTX"]
    assert ir_load_envs.active_variables(qd.vulkan) == []
    with pytest.raises(ValueError, match="QD_LOAD_IR and QUADRANTS_LOAD_PTX"):
        misc._check_ir_load_envs_against_caching(_Cfg(qd.cuda), src_ll_cache=False)
    misc._check_ir_load_envs_against_caching(_Cfg(qd.metal), src_ll_cache=True)
