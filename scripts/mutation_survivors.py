# scripts/mutation_survivors.py: why each generated mutant that every test covering its line lets through survives.
"""The survivors of scripts/mutation_check.py --generated --covering, explained one by one.

Keyed by mutant name (mutation_generate.py: file stem, line, kind and a digest of path, offset and edit). A
survivor the suite should have caught gets a test instead of an entry here; an entry says why no test can tell
the mutant from the code (an equivalent mutant) or why the difference is not one a user could meet.
"""

EXPLAINED = {
}
