# python/quadrants/data/struct_members.py: a struct field's members by name, shared by the compiled struct field
# (data/struct_field.py) and the python backend's (interop/python_struct_field.py).


class StructMembers:
    """Members as attributes (`f.pos`) and by name (`f.get_member_field("pos")`, `f.keys`), from `field_dict`."""

    def __getattr__(self, name):
        # Only reached when normal lookup fails: members are attributes unless the API has the name.
        field_dict = self.__dict__.get("field_dict")
        if field_dict is not None and name in field_dict:
            return field_dict[name]
        raise AttributeError(f"struct field has no member or attribute '{name}'"
                             + (f" (its members: {', '.join(field_dict)})" if field_dict else ""))

    @property
    def keys(self):
        """The member names, in order."""
        return list(self.field_dict)

    def get_member_field(self, key):
        """Member `key`: a field, or under the python backend a tensor (another struct field for a struct member)."""
        if key not in self.field_dict:
            raise KeyError(f"struct field has no member {key!r} (its members: {', '.join(self.field_dict)})")
        return self.field_dict[key]
