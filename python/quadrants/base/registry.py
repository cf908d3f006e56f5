# python/quadrants/base/registry.py: the one seam through which a lower floor of the package reaches a higher one.
#
# The package is built in floors (docs/ARCHITECTURE.md), each importing only the floors below it. A few calls
# must still go up: qd.reset() clears state that containers keep, a type object (qd.math.vec3) builds a container
# or a value, a field method inside a kernel runs a function written in the kernel language, a kernel launch is
# recorded by an open qd.ad.Tape. For each, the higher floor fills a named slot here when it is imported, and the
# lower floor calls through the slot: the lower floor never imports the higher one. `import quadrants` imports
# every floor, so every slot is filled before a program runs.
_slots = {}
_reset_hooks = []
_init_hooks = []


def provide(name, value):
    """Fills slot `name` (called at import time by the module that implements it)."""
    _slots[name] = value


def get(name):
    """The value in slot `name`; a RuntimeError names the slot when the floor that fills it was never imported."""
    try:
        return _slots[name]
    except KeyError:
        raise RuntimeError(f"quadrants: '{name}' is provided by a part of the package that was not imported; "
                           "import quadrants (the whole package) first.") from None


def get_or(name, default):
    """The value in slot `name`, or `default` when nothing filled it (an optional part, such as autodiff)."""
    return _slots.get(name, default)


def on_reset(hook):
    """Registers hook() to run on every qd.reset() (and so before every qd.init()); returns hook."""
    _reset_hooks.append(hook)
    return hook


def reset_hooks():
    """The registered reset hooks, in registration order."""
    return tuple(_reset_hooks)


def on_init(hook):
    """Registers hook(config) to run at the end of every qd.init(), with the configuration it made; returns hook."""
    _init_hooks.append(hook)
    return hook


def init_hooks():
    """The registered init hooks, in registration order."""
    return tuple(_init_hooks)
