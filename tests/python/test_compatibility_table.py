# tests/python/test_compatibility_table.py: every row of docs/guide.md's compatibility table runs its probe.
"""The compatibility table (between the compatibility markers of docs/guide.md; docs/compatibility.md includes
it) says, row by row, what a program written for upstream Quadrants can use here. Each row has a probe in
tests/python/compat_probes/, registered under the row's first cell with the status it checks: a "yes" row's probe
runs the construct and checks its result, a "not yet" or "no" row's checks that it is absent or raises. This test
fails when a row has no probe, a probe has no row, or a row's status differs from its probe's, so the table cannot
drift from the code.
"""
import re
from pathlib import Path

import pytest

import quadrants as qd
from compat_probes import PROBES, STATUSES

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide.md"
START, END = "<!-- compatibility:start -->", "<!-- compatibility:end -->"

ADD_A_PROBE = (
    "Add a probe for it in tests/python/compat_probes/ (the module whose rows are closest): a function that runs "
    "the construct with a small kernel or API call and checks the result (raise on a mismatch), decorated with "
    "@probe(<the row's first cell, exactly as the guide writes it>, status=<its 'here' cell>). A 'not yet' or 'no' "
    "row's probe checks that the construct is absent or raises as the row says."
)


class Row:
    def __init__(self, line_number, cells):
        self.line_number = line_number
        self.key, self.status, self.notes = cells

    def __repr__(self):
        return f"docs/guide.md:{self.line_number}: {self.key!r} ({self.status})"


def _cells(line):
    """A markdown table line's cells; a cell may hold `|` only escaped as `\\|`."""
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [cell.strip().replace("\\|", "|") for cell in cells[1:-1]]


def table_rows():
    text = GUIDE.read_text()
    assert text.count(START) == 1 and text.count(END) == 1, f"{GUIDE} must hold the table between {START} and {END}"
    first_line = text[:text.index(START)].count("\n") + 1
    rows = []
    header_seen = False
    for offset, line in enumerate(text[text.index(START):text.index(END)].splitlines()):
        if not line.startswith("|"):
            continue
        cells = _cells(line)
        if not header_seen:
            assert cells == ["construct", "here", "notes"], f"unexpected table header: {cells}"
            header_seen = True
            continue
        if set("".join(cells)) <= set("-: "):
            continue  # the separator line
        assert len(cells) == 3, f"docs/guide.md:{first_line + offset}: a row needs 3 cells, got {len(cells)}: {line}"
        rows.append(Row(first_line + offset, cells))
    return rows


ROWS = table_rows()


def _row_id(row):
    words = re.sub(r"[^A-Za-z0-9_.]+", " ", row.key).split()
    return "-".join(words[:4])[:40] or str(row.line_number)


@pytest.fixture
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_the_table_lives_in_the_guide_and_compatibility_md_includes_it():
    page = (ROOT / "docs" / "compatibility.md").read_text()
    assert "{include} guide.md" in page and START in page and END in page
    assert "| construct | here | notes |" not in page  # no second copy that could drift
    assert len(ROWS) >= 40


def test_every_row_has_a_known_status_and_a_probe():
    unknown = [row for row in ROWS if row.status not in STATUSES]
    assert not unknown, f"Rows whose 'here' cell is none of {STATUSES}: {unknown}"
    missing = [row for row in ROWS if row.key not in PROBES]
    assert not missing, "Compatibility rows without a probe:\n  " + "\n  ".join(map(repr, missing)) + "\n" + ADD_A_PROBE


def test_every_probe_has_a_row():
    keys = {row.key for row in ROWS}
    stale = [key for key in PROBES if key not in keys]
    assert not stale, ("Probes whose row is gone or was reworded (the key must be the row's first cell, exactly):\n  "
                       + "\n  ".join(f"{key!r} ({PROBES[key].check.__module__}.{PROBES[key].check.__name__})"
                                     for key in stale))


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_row(row, fresh_runtime):
    found = PROBES.get(row.key)
    if found is None:
        pytest.fail(f"{row!r} has no probe. {ADD_A_PROBE}")
    if found.status != row.status:
        pytest.fail(f"{row!r} says {row.status!r}, but its probe {found.check.__module__}.{found.check.__name__} "
                    f"checks {found.status!r}: rewrite the probe to check what the row now claims.")
    found.check()
