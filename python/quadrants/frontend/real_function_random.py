# python/quadrants/frontend/real_function_random.py: qd.random() inside a @qd.real_func.
#
# A real function cannot see the kernel's locals, where the random streams live (random_numbers.py). So a
# function that draws numbers, itself or through the functions it calls, takes its caller's stream as two hidden
# parameters ahead of its own: the stream's key by value and its sequence counter by reference, which the
# function's draws advance as the caller's own draws would. A function calls itself or another function still
# being translated before it is known whether that one draws, so the calls made inside functions are recorded
# and completed, with the functions' parameter lists, once the kernel is translated; a call from the kernel
# itself (or an inlined func) comes after the whole call graph below it is known and is completed at once.
from quadrants.frontend.random_numbers import RandomScope


def random_users(signatures):
    """The signatures that draw random numbers themselves or call one that does (a fixed point over calls)."""
    users = {s for s in signatures if s.calls_random}
    changed = True
    while changed:
        changed = False
        for signature in signatures:
            if signature not in users and any(callee in users for callee in signature.callees):
                users.add(signature)
                changed = True
    return users


def add_random_arguments(stmt, callee, arguments):
    """Puts the stream arguments first in a `(call NAME (ARG...) (RESULT...))` statement."""
    prefix = f"call {callee.name} ("
    assert stmt.head.startswith(prefix), "add_random_arguments(): not the call statement of this function"
    rest = stmt.head[len(prefix):]
    stmt.head = prefix + arguments + ("" if rest.startswith(")") else " ") + rest


def random_params(signature):
    """The hidden parameters of a function that draws random numbers: the caller's stream key and sequence."""
    return [f"(scalar {signature.random_key} u64)", f"(ref {signature.random_seq} u64)"]


class RealFunctionRandom:
    """Mixed into the Translator through RealFunctionTranslator: the random streams of real functions."""

    def function_random_scope(self, signature):
        """The stream a real function's qd.random() calls draw from: its hidden parameters."""
        signature.random_key = self.names.fresh("_qd_random_key_param")
        signature.random_seq = self.names.fresh("_qd_random_seq_param")
        return RandomScope(signature.random_key, signature.random_seq, make_key=None)

    def thread_random_stream(self, callee, stmt):
        """Gives the call `stmt` of `callee` the caller's stream, where the callee (transitively) draws numbers."""
        caller = self.current_real_function
        if caller is not None:  # completed in finish_random_calls, when the whole call graph is known
            caller.callees.add(callee)
            self.pending_random_calls.append((stmt, callee, f"(var {caller.random_key}) (ref {caller.random_seq})"))
            return
        if callee not in random_users(self.real_function_order):
            return
        scope = self.random_scopes[-1] if self.parallel_depth else self.serial_random_scope()
        scope.used = True
        add_random_arguments(stmt, callee, f"(var {scope.key_name}) (ref {scope.seq_name})")

    def finish_random_calls(self):
        """Completes the calls made inside functions; returns the signatures that take the hidden parameters."""
        users = random_users(self.real_function_order)
        for stmt, callee, arguments in self.pending_random_calls:
            if callee in users:
                add_random_arguments(stmt, callee, arguments)
        self.pending_random_calls = []
        return users
