# python/quadrants/base/log.py: qd._logging and qd.set_logging_level, through Python's logger "quadrants".
#
# Upstream logs through its C++ logger; here every message goes to logging.getLogger("quadrants"), so an
# application routes, filters and formats quadrants' messages like any other library's. No handler is
# installed: without logging configured, Python's last-resort handler shows warnings and errors on stderr.
# Callers log through the module attributes (`_logging.info(...)`), never through saved references,
# because applications (Genesis) replace `info`, `warn`, ... with their own functions.
import logging

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
