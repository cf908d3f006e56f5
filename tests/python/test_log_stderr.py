# tests/python/test_log_stderr.py: quadrants' log messages reach stderr as upstream's C++ logger writes them, whatever
# the program's logging setup (base/log.py), so upstream programs and tests that read warnings there see them.
import dataclasses
import logging
import re

import pytest

import quadrants as qd
from quadrants.base import log as _log

LINE = re.compile(r"^\[W \d\d/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3} \d+\] \[test_log_stderr\.py:(\w+)@\d+\] (.*)$")


@pytest.fixture
def root_with_a_console_handler():
    """A program that configured logging on the root logger (logging.basicConfig) and the pytest handlers."""
    handler = logging.StreamHandler()
    logging.getLogger().addHandler(handler)
    yield
    logging.getLogger().removeHandler(handler)


def test_a_warning_goes_to_stderr_once_in_upstreams_format(capfd, root_with_a_console_handler):
    capfd.readouterr()
    qd._logging.warn("value {} of {name}", 3, name="x")
    out, err = capfd.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err  # the root logger's handler does not print it a second time
    match = LINE.match(lines[0])
    assert match and match.groups() == ("test_a_warning_goes_to_stderr_once_in_upstreams_format", "value 3 of x")


def test_the_level_decides_what_reaches_stderr(capsys):
    try:
        qd.set_logging_level(qd.WARN)
        qd._logging.info("not shown")
        qd._logging.error("shown")
        err = capsys.readouterr().err
        assert "not shown" not in err and re.search(r"^\[E .*\] shown$", err, re.M), err
    finally:
        qd.set_logging_level(qd.INFO)


def test_a_program_can_route_messages_through_its_own_logging(capsys):
    seen = []

    class Collect(logging.Handler):
        def emit(self, record):
            seen.append((record.name, record.getMessage()))

    collect = Collect()
    root, logger = logging.getLogger(), logging.getLogger("quadrants")
    root.addHandler(collect)
    logger.removeHandler(_log.stderr_handler)
    logger.propagate = True
    try:
        qd._logging.warn("routed")
    finally:
        logger.addHandler(_log.stderr_handler)
        logger.propagate = False
        root.removeHandler(collect)
    assert "routed" not in capsys.readouterr().err
    assert seen == [("quadrants", "routed")]


def test_fastcache_warnings_for_template_fields_reach_stderr(tmp_path, capfd):
    # Upstream's fast cache cannot key on a field; a field given as a template (directly or as a dataclass member)
    # warns [FASTCACHE][INVALID_FUNC] on stderr, one given through a qd.Tensor annotation is skipped silently.
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))

    @dataclasses.dataclass(frozen=True)
    class ByTemplate:
        a: qd.Template = None

    @dataclasses.dataclass(frozen=True)
    class ByTensor:
        a: qd.Tensor = None

    @qd.kernel(fastcache=True)
    def direct(x: qd.Template):
        pass

    @qd.kernel(fastcache=True)
    def member(x: ByTemplate):
        pass

    @qd.kernel(fastcache=True)
    def tensor(x: ByTensor):
        pass

    f = qd.field(qd.f32, shape=(4,))
    for kernel, arg, warns in ((direct, f, True), (member, ByTemplate(a=f), True), (tensor, ByTensor(a=f), False)):
        capfd.readouterr()
        kernel(arg)
        err = capfd.readouterr().err
        expected = f"[FASTCACHE][INVALID_FUNC] The pure function {kernel.__name__} could not be fast cached"
        assert (expected in err) == warns, (kernel.__name__, err)
