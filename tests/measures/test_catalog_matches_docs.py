"""The catalog (what 'rankwise measures' prints) and docs/measures.md say the same thing
(issue 13, item 12: Rprec's cutoff and infAP's unsampled documents disagreed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rankwise.measures import FAMILIES

DOCS = Path(__file__).parents[2] / "docs" / "measures.md"


def _docs_rows() -> dict[str, dict[str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    header = "| family | aliases | cutoff | parameters (defaults) | definition |"
    assert header in text, "the table of measures in docs/measures.md changed its columns"
    rows: dict[str, dict[str, str]] = {}
    for line in text[text.index(header):].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        family, aliases, cutoff, params, definition = cells
        rows[family.strip("`")] = {
            "aliases": aliases, "cutoff": cutoff, "params": params, "definition": definition,
        }
    return rows


ROWS = _docs_rows()


def _names(cell: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", cell))


def _plain(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def test_every_family_has_one_row() -> None:
    assert list(ROWS) == list(FAMILIES)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_definition_is_the_catalogs_formula(name: str) -> None:
    assert _plain(ROWS[name]["definition"]) == _plain(FAMILIES[name].formula)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_aliases_cutoff_and_parameters_agree(name: str) -> None:
    family, row = FAMILIES[name], ROWS[name]
    # aliases that differ from the name only in case are not listed (names are case-insensitive)
    aliases = {a for a in family.aliases if a.lower() != family.name.lower()}
    assert _names(row["aliases"]) == aliases
    assert row["cutoff"] == family.cutoff
    assert _names(row["params"]) == set(family.params)


def test_the_statements_the_issue_found_contradicted() -> None:
    assert "int(mult * R + 0.9)" in FAMILIES["Rprec"].formula
    assert "round(" not in FAMILIES["Rprec"].formula
    assert "negative grade was pooled but not judged" in FAMILIES["infAP"].formula
