# python/quadrants/base/log.py: qd._logging and qd.set_logging_level, through Python's logger "quadrants".
#
# Upstream logs through its C++ logger, which writes every message at or above the level to stderr, whatever the
# program's own logging setup; its tests read warnings such as [FASTCACHE][INVALID_FUNC] from the process's stderr.
# Here every message goes to logging.getLogger("quadrants"), which by default has one handler, stderr_handler: it
# writes each message to the sys.stderr of the moment (so pytest's capsys/capfd and redirect_stderr see it) in
# upstream's line format, and the logger does not propagate, so a program that configures the root logger does not
# get each message twice. To route quadrants' messages through your own logging configuration instead:
#     logging.getLogger("quadrants").removeHandler(qd._logging.stderr_handler)
#     logging.getLogger("quadrants").propagate = True
# Callers log through the module attributes (`_logging.info(...)`), never through saved references,
# because applications (Genesis) replace `info`, `warn`, ... with their own functions.
import logging

import sys

logger = logging.getLogger("quadrants")

TRACE = "trace"
DEBUG = "debug"
INFO = "info"
WARN = "warn"
ERROR = "error"
CRITICAL = "critical"

supported_log_levels = [DEBUG, TRACE, INFO, WARN, ERROR, CRITICAL]

# Python has no TRACE level; it sits below DEBUG as in upstream's order.
TRACE_LEVEL = 5
logging.addLevelName(TRACE_LEVEL, "TRACE")
_PYTHON_LEVELS = {
    TRACE: TRACE_LEVEL,
    DEBUG: logging.DEBUG,
    INFO: logging.INFO,
    WARN: logging.WARNING,
    ERROR: logging.ERROR,
    CRITICAL: logging.CRITICAL,
}


class _StderrHandler(logging.Handler):
    """Writes records to sys.stderr as it is when each is emitted (a StreamHandler keeps the stream it was made
    with, which would bypass a later redirection)."""

    def emit(self, record):
        try:
            stream = sys.stderr
            if stream is None:  # pythonw: no console
                return
            stream.write(self.format(record) + "\n")
            stream.flush()
        except Exception:  # noqa: BLE001 - logging's contract: a failing handler reports and goes on
            self.handleError(record)


class _UpstreamFormatter(logging.Formatter):
    """Upstream's line: `[W 11/29/26 09:04:30.781 14506] [file.py:function@line] message`."""

    def __init__(self):
        super().__init__("[%(level_letter)s %(asctime)s.%(msecs)03d %(process)d] "
                         "[%(filename)s:%(funcName)s@%(lineno)d] %(message)s", datefmt="%m/%d/%y %H:%M:%S")

    def format(self, record):
        record.level_letter = record.levelname[:1]
        return super().format(record)


stderr_handler = _StderrHandler()
stderr_handler.setFormatter(_UpstreamFormatter())
logger.addHandler(stderr_handler)
logger.propagate = False


def _python_level(level, what):
    name = level.lower() if isinstance(level, str) else level
    if name not in _PYTHON_LEVELS:
        raise ValueError(f"{what} expects one of {', '.join(map(repr, supported_log_levels))}, but got {level!r}.")
    return _PYTHON_LEVELS[name]


def _get_logging(level):
    """A function that logs `msg.format(*args, **kwargs)` at `level` ('trace' ... 'critical')."""
    python_level = _python_level(level, "qd._logging._get_logging()")

    def log(msg, *args, **kwargs):
        if logger.isEnabledFor(python_level):
            logger.log(python_level, msg.format(*args, **kwargs) if args or kwargs else msg, stacklevel=2)

    log.__name__ = level
    return log


def set_logging_level(level):
    """Shows quadrants' messages at `level` and above: 'trace', 'debug', 'info', 'warn', 'error', 'critical'."""
    logger.setLevel(_python_level(level, "qd.set_logging_level()"))


def is_logging_effective(level):
    """Whether a message at `level` would be logged now."""
    return logger.isEnabledFor(_python_level(level, "qd.is_logging_effective()"))


trace = _get_logging(TRACE)
debug = _get_logging(DEBUG)
info = _get_logging(INFO)
warn = _get_logging(WARN)
error = _get_logging(ERROR)
critical = _get_logging(CRITICAL)

set_logging_level(INFO)  # upstream's default level

__all__ = ["DEBUG", "TRACE", "INFO", "WARN", "ERROR", "CRITICAL", "set_logging_level", "is_logging_effective"]
