# python/quadrants/ad/_adjoint.py: kernel.grad(*args): builds, caches and launches a kernel's adjoint.
#
# The adjoint of one specialization is the primal's IR text with a gradient array param for each
# differentiable container and an (adjoint (PRIMAL GRAD) ...) clause (docs/IR.md); the C++ pipeline
# runs reverse_ad on it. Param order matches the launcher's QdArgs: the primal's own params, the
# gradients of its ndarray arguments, the fields it uses, then those fields' gradients.
import sys
import warnings

from quadrants.base import registry
from quadrants.base.errors import QuadrantsRuntimeError
from quadrants.data.tensor import unwrap
from quadrants.frontend.compound_params import PlanChanged, PlannedLeaves
from quadrants.frontend.sparse_grads import has_sparse_grad, refresh_snapshots
from quadrants.runtime import _core, init as _runtime


class NoGradients(RuntimeError):
    """kernel.grad() of a kernel none of whose arrays has a gradient (a Tape skips such kernels, as upstream)."""


def _split_params(line):
    """The param forms of a `(params ...)` line: balanced s-expressions, each as text."""
    inner = line.strip()[len("(params"):-1]
    forms, depth, start = [], 0, None
    for k, ch in enumerate(inner):
        if ch == "(":
            if depth == 0:
                start = k
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                forms.append(inner[start:k + 1])
    return forms


def _param_name(form):
    return form[1:-1].split()[1]


def _unique(name, taken):
    candidate, n = name, 0
    while candidate in taken:
        n += 1
        candidate = f"{name}{n}"
    taken.add(candidate)
    return candidate


def adjoint_text(text, n_globals, array_grads, global_grads, clause="adjoint", suffix="__grad", dtype=None):
    """The primal IR text turned into the text of its adjoint.

    n_globals: how many trailing params are fields; array_grads: for each leading array param that has
    a gradient, (param index, grad spec entry) in order; global_grads: indices (among the globals) of
    fields that have gradients. clause="tangent", suffix="__dual": the forward-mode text, pairing duals;
    clause="validate", suffix="__read", dtype="u8": the validation text, pairing read marks (the
    partners of fields take `dtype` instead of the field's own).
    """
    lines = text.split("\n")
    at = next(k for k, line in enumerate(lines) if line.strip().startswith("(params"))
    forms = _split_params(lines[at])
    own, fields = forms[:len(forms) - n_globals], forms[len(forms) - n_globals:]
    taken = {_param_name(f) for f in forms}
    pairs, own_grads, field_grads = [], [], []
    for index, spec in array_grads:
        name = _param_name(own[index])
        grad = _unique(f"{name}{suffix}", taken)
        _, dtype, ndim, element_shape, contiguous, _ = spec
        shape = " ".join(map(str, element_shape))
        own_grads.append(f"(array {grad} {dtype} {ndim} ({shape}) {int(contiguous)} 1)")
        pairs.append((name, grad))
    for index in global_grads:
        parts = fields[index][1:-1].split(" ", 2)
        if dtype is not None:
            parts[2] = f"{dtype} {parts[2].split(' ', 1)[1]}"
        grad = _unique(f"{parts[1]}{suffix}", taken)
        field_grads.append(f"({parts[0]} {grad} {parts[2]})")
        pairs.append((parts[1], grad))
    params = own + own_grads + fields + field_grads
    lines[at] = f"  (params {' '.join(params)})\n  ({clause} {' '.join(f'({p} {g})' for p, g in pairs)})"
    return "\n".join(lines)


class AdjointLaunchers:
    """The adjoint launchers of one kernel, one per (template key, which array arguments have gradients).

    qd.reset()/qd.init() drop them (_release), so the next kernel.grad() compiles under the new configuration.
    """

    tangent = False  # TangentLaunchers: forward mode (duals instead of gradients)
    clause = "adjoint"  # the IR clause pairing each array with its partner
    suffix = "__grad"  # added to an array's name to name its partner

    def __init__(self, definition, name, key_of=None):
        self.definition = definition
        self.name = name
        self.key_of = key_of  # the template key of a call (Kernel._key_of); None: no templates
        self.entries = {}  # key -> (launcher, the template values its key names by id(), kept alive)
        self.plans = {}  # template key -> the leaves (compound_params.py) the kernel reads, in launch order
        # template key -> None: the kernel uses no sparse field; else (the launcher of its activation prepass, or
        # None when none of its sparse fields has a gradient) (frontend/sparse_grads.py)
        self.prepasses = {}
        # per runtime parameter: an array whose gradient the adjoint uses (not annotated needs_grad=False)
        self.takes_grad = [p.kind == "array" and getattr(p.annotation, "needs_grad", None) is not False
                           for p in (definition.params[k] for k in definition.runtime_positions)]

    def _release(self):
        self.entries.clear()
        self.plans.clear()
        self.prepasses.clear()

    def __call__(self, args, explicit_grads=None):
        """Runs the adjoint for `args`; explicit_grads (qd.autograd_op) gives the gradient of each parameter in
        order instead of the arguments' own (.grad), None where there is none."""
        definition = self.definition
        if definition.reads_twins and self.clause == "adjoint":
            raise RuntimeError(f"Cannot automatically differentiate through a grad tensor: kernel '{self.name}' reads "
                               "the .grad or .dual of an argument, whose own gradient autodiff does not track.")
        if len(args) != len(definition.params):
            raise TypeError(f"kernel.grad() of '{self.name}' takes the kernel's {len(definition.params)} arguments, "
                            f"but got {len(args)}.")
        template_key = self.key_of(*args) if self.key_of is not None and definition.template_slots else None
        plan = self.plans.get(template_key)
        if plan is None:  # the arrays and scalars read through dataclass, data_oriented and qd.Tensor arguments
            _runtime.track_kernel(self)
            translation, _, leaves = definition.discover(args, definition.slot_values(args))
            plan = self.plans[template_key] = leaves.plan
            sparse = self.clause == "adjoint" and any(_is_sparse(c) for c in translation[1])
            with_grads = sparse and any(has_sparse_grad(c) for c in translation[1])
            self.prepasses[template_key] = ((self._make_prepass(args, plan) if with_grads else None,)
                                            if sparse else None)
        values = [args[k] for k in definition.runtime_positions] + [_leaf_value(definition, args, leaf) for leaf in plan]
        takes_grad = self.takes_grad + [leaf.kind == "array" for leaf in plan]
        grads = [self._companion(v) if takes else None for v, takes in zip(values, takes_grad)]
        if explicit_grads is not None:
            grads[:len(self.takes_grad)] = [explicit_grads[k] for k in definition.runtime_positions]
        mask = tuple(g is not None for g in grads)
        key = (template_key, mask)
        sparse = self.prepasses[template_key]
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = (self._make(args, mask, plan, "adjoint" if sparse else None),
                                         tuple(definition.slot_values(args).values()))
        if sparse is not None:  # the activity its loops visit; then activate the cells gradients go into
            refresh_snapshots()
            if sparse[0] is not None:
                sparse[0](*values)
        return entry[0](*values, *[g for g in grads if g is not None])

    def _companion(self, container):
        if _is_torch_tensor(container):
            return torch_grad(container)
        return grad_of(container)

    def _field_partner(self, container):
        return _field_grad(container)

    def _partner_entry(self, entry):
        """The launcher entry of an argument's partner, from the argument's own."""
        return (entry[0], entry[1] + self.suffix) + tuple(entry[2:])

    def _partnered_text(self, text, containers, array_grads, fields):
        """The IR text to compile and the partners of the fields it uses (appended to its globals)."""
        if not array_grads and not fields:
            raise NoGradients(f"kernel.grad() of '{self.name}': none of the arrays it uses has a gradient; create "
                              "them with needs_grad=True.")
        text = adjoint_text(text, len(containers), array_grads, fields)
        return text, [_field_grad(containers[k]) for k in fields]

    def _needs_stack_check(self, text):
        """Whether to translate again to apply upstream's rule for reverse mode without AD stacks
        (qd.init(ad_stack_experimental_enabled=False), its default): only a kernel with a serial for loop (a range()
        loop below the top level translates to one) can break it."""
        options = _runtime.config().options
        if self.tangent or options is None or options.ad_stack_experimental_enabled:
            return False
        return "(for " in text

    def _make_prepass(self, args, plan):
        """The launcher of the kernel's activation prepass (frontend/sparse_grads.py): its own params, no gradients."""
        definition = self.definition
        values, regular, holder = definition.slot_values(args), len(definition.runtime_positions), []

        def compile_fn(spec, flat_args):
            translation = definition.translate(spec[:regular], values, PlannedLeaves(plan, spec[regular:]),
                                               sparse_ad="activate")
            return definition.compile_translation(holder[0], translation)

        holder.append(_core.Launcher(self.name, definition.launcher_params() + [leaf.launcher_entry() for leaf in plan],
                                     compile_fn))
        return holder[0]

    def _make(self, args, mask, plan, sparse_ad=None):
        definition = self.definition
        values = definition.slot_values(args)
        regular = len(definition.runtime_positions)
        base = definition.launcher_params() + [leaf.launcher_entry() for leaf in plan]
        grad_entries = [self._partner_entry(e) for e, has in zip(base, mask) if has]
        n = len(base)
        holder = []
        name = self.name

        def compile_fn(spec, flat_args):
            try:
                text, containers, line_sources = definition.translate(
                    spec[:regular], values, PlannedLeaves(plan, spec[regular:n]), sparse_ad=sparse_ad)
                if self._needs_stack_check(text):
                    definition.translate(spec[:regular], values, PlannedLeaves(plan, spec[regular:n]),
                                         sparse_ad=sparse_ad, no_ad_stack=True)
            except PlanChanged as exc:
                raise NotImplementedError(f"kernel.grad() of '{name}': this specialization reads '{exc}', which the "
                                          "first call did not; call kernel.grad() with arguments of one kind.") from None
            if not self.tangent:
                reject_random(text, name)
            fields = [k for k, c in enumerate(containers) if self._field_partner(c) is not None]
            array_grads = list(zip([k for k, has in enumerate(mask) if has], spec[n:]))
            text, partners = self._partnered_text(text, containers, array_grads, fields)
            return definition.compile_translation(holder[0], (text, list(containers) + partners, line_sources))

        launcher = _core.Launcher(name, base + grad_entries, compile_fn)
        holder.append(launcher)
        return launcher


def reject_random(text, name):
    """Reverse mode cannot differentiate a kernel that draws random numbers: its adjoint replays the primal's
    values in another launch, whose draws differ, so the gradient would silently belong to other numbers.
    Upstream rejects such kernels with a RuntimeError naming its RandStmt; so do we (docs/IR.md's rand_bits)."""
    if "(bin rand_bits " in text:
        raise QuadrantsRuntimeError(
            f"kernel.grad() of '{name}': RandStmt not supported in reverse-mode autodiff: the kernel draws random "
            "numbers (qd.random, qd.randn), which its adjoint cannot replay. Draw them in a separate kernel into a "
            "field and read that field instead.")


def _is_sparse(container):
    """Whether a container is a field under pointer, bitmasked or dynamic SNodes."""
    return getattr(getattr(container, "_layout", None), "activity", None) is not None


def _is_torch_tensor(value):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def torch_grad(tensor):
    """The gradient a kernel's adjoint accumulates into for a torch tensor argument: its .grad, made (zeros)
    when the tensor requires grad and has none yet, as upstream does; None when it does not require grad."""
    if not tensor.requires_grad:
        return None
    with warnings.catch_warnings():  # torch warns that autograd does not fill a non-leaf's .grad: here we do
        warnings.simplefilter("ignore", UserWarning)
        if tensor.grad is None:
            import torch

            tensor.grad = torch.zeros_like(tensor)
        return tensor.grad


def _leaf_value(definition, args, leaf):
    """A leaf's value in this call: its root argument's member at the leaf's path."""
    value = args[next(k for k, p in enumerate(definition.params) if p.name == leaf.path[0])]
    for attr in leaf.path[1:]:
        value = getattr(value, attr)
    return value


def _field_grad(container):
    """The gradient of a field the kernel uses as a global, when it has an allocated one of the same layout."""
    grad = getattr(container, "grad", None)
    if grad is None or grad._place_node is None or getattr(container, "_grad_of", None) is not None:
        return None  # none, or one never placed (a float field made without a shape always has one)
    return grad  # under sparse SNodes too: placed beside the field, it shares its cells (frontend/sparse_grads.py)


class TangentLaunchers(AdjointLaunchers):
    """The forward-mode launchers of one kernel: the kernel with a (tangent (PRIMAL DUAL)...) clause, which
    computes its results and, into the .dual of what it writes, their tangents (src/passes/forward_ad.cpp)."""

    tangent = True
    clause = "tangent"
    suffix = "__dual"

    def _companion(self, container):
        return dual_of(container)

    def _field_partner(self, container):
        return _field_dual(container)

    def _partnered_text(self, text, containers, array_grads, fields):
        if not array_grads and not fields:  # a kernel without duals runs as it is
            return text, []
        text = adjoint_text(text, len(containers), array_grads, fields, "tangent", "__dual")
        return text, [_field_dual(containers[k]) for k in fields]


def _field_dual(container):
    """The dual of a field the kernel uses as a global, when it has one."""
    dual = getattr(container, "dual", None)
    if dual is None or dual._place_node is None or getattr(container, "_dual_of", None) is not None:
        return None
    return dual  # under sparse SNodes too: written where the primal is written, so in cells active already


def launchers_of(kernel, cls, attr):
    """The `cls` launchers of a kernel object (FastKernel or Kernel), made on first use and kept as `attr`."""
    launchers = getattr(kernel, attr, None)
    if launchers is None:
        launchers = cls(kernel.definition, kernel.fn.__name__, getattr(kernel, "_key_of", None))
        setattr(kernel, attr, launchers)
    return launchers


def adjoint_launchers(kernel):
    """The AdjointLaunchers of a kernel object (FastKernel or Kernel), made on first use."""
    return launchers_of(kernel, AdjointLaunchers, "_qd_adjoints")


def tangent_launchers(kernel):
    """The TangentLaunchers of a kernel object (FastKernel or Kernel), made on first use."""
    return launchers_of(kernel, TangentLaunchers, "_qd_tangents")


def grad_of(container):
    """The gradient container paired with a field or ndarray argument (or a qd.Tensor of one), or None."""
    container = unwrap(container)
    return getattr(container, "grad", None) if hasattr(container, "_array") else None


def dual_of(container):
    """The dual container paired with a field or ndarray argument (or a qd.Tensor of one), or None."""
    container = unwrap(container)
    return getattr(container, "dual", None) if hasattr(container, "_array") else None


def run_adjoint(kernel, args):
    """kernel.grad(*args) (kernels/kernel.py): runs the kernel's adjoint; one whose kernel reaches no gradient runs
    upstream's way, changing nothing, and says so once."""
    try:
        return adjoint_launchers(kernel)(args)
    except NoGradients as exc:
        if not getattr(kernel, "_qd_warned_no_gradients", False):
            kernel._qd_warned_no_gradients = True
            warnings.warn(f"{exc} Nothing was done.", stacklevel=3)
        return None


registry.provide("kernel_grad", run_adjoint)
registry.provide("torch_grad", torch_grad)  # kernels/pitfalls.py gives tensors that require grad their .grad
