# python/quadrants/interop/python_struct_field.py: a struct field under qd.init(arch=qd.python): one torch
# tensor (PyTensor) per member, all of one batch shape.
from quadrants.data.struct_members import StructMembers


class PythonStructField(StructMembers):
    """`my_struct.field(shape)` under the python backend: members are `field_dict[key]` and attributes (`f.pos`),
    each a PyTensor (a nested struct member is another PythonStructField). Kernels, running as Python, index the
    members: `f.pos[i]`."""

    def __init__(self, field_dict, struct_type=None, name=None):
        self.field_dict = dict(field_dict)
        self.element_type = struct_type
        self.name = name
        self.grad = None
        self.dual = None

    @property
    def shape(self):
        """The batch shape every member shares."""
        return next(iter(self.field_dict.values())).shape

    def fill(self, value):
        """Sets every entry of every member to `value`."""
        for member in self.field_dict.values():
            member.fill(value)

    def to_numpy(self):
        """{member: numpy array} (nested dicts for struct members), copies."""
        return {k: m.to_numpy().copy() if not isinstance(m, PythonStructField) else m.to_numpy()
                for k, m in self.field_dict.items()}

    def from_numpy(self, arrays):
        """Copies a {member: array} dict (as to_numpy() gives) into the members."""
        missing = set(self.field_dict) - set(arrays)
        if missing:
            raise KeyError(f"from_numpy(): the dict lacks member(s) {', '.join(sorted(missing))}.")
        for key, member in self.field_dict.items():
            member.from_numpy(arrays[key])

    def __repr__(self):
        return f"<python-backend struct field {self.name or ''} members={self.keys} shape={tuple(self.shape)}>"
