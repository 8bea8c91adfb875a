"""``rankwise measures``: the measure catalog, and trec_eval's names."""

from __future__ import annotations

import argparse
import textwrap
from typing import TYPE_CHECKING, Any

from rankwise.cli.options import add_common_options
from rankwise.cli.summaries import SUMMARIES

if TYPE_CHECKING:
    from rankwise.measures.catalog import Family

__all__ = ["add_parser", "describe_family", "list_families", "list_trec_names", "run"]

_TREC_NOTE = """\
trec_eval's names work too, in 'rankwise eval' and the Python API, and they keep
trec_eval's semantics: 'ndcg_cut.10' is ndcg@10(gain=linear) (trec_eval's nDCG
uses the grade itself as gain), 'P.5,10' is P@5 and P@10, 'official' and
'all_trec' are trec_eval's sets. 'rankwise measures --trec' lists them all;
'rankwise trec-eval' prints them with trec_eval's labels (P_5, ndcg_cut_10)."""


_MEANINGS = {
    "ndcg": (
        "'ndcg' has two meanings. In rankwise's language ('rankwise eval', 'compare', "
        "the Python API) it is ndcg(gain=exp): gain 2^grade - 1. In trec_eval's "
        "('rankwise trec-eval -m ndcg', and names with a dot such as ndcg_cut.10) it is "
        "ndcg(gain=linear): the grade itself, as trec_eval, pytrec_eval, ranx, ir_measures "
        "and scikit-learn compute it. With grades 0 and 1 only, both give the same number."
    ),
    "dcg": (
        "'dcg' is dcg(gain=exp): gain 2^grade - 1; dcg(gain=linear) uses the grade itself, "
        "as trec_eval, pytrec_eval, ranx, ir_measures and scikit-learn do."
    ),
}
"""What a bare family name means where it means two things."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``measures`` command."""
    parser = commands.add_parser(
        "measures",
        help=SUMMARIES["measures"],
        description="List every measure family: its name and aliases, whether it takes a "
                    "cutoff (@k), its parameters with their defaults, and a one-line definition.",
    )
    parser.add_argument("names", metavar="NAME", nargs="*",
                        help="show these families in full (formula, reference)")
    parser.add_argument("--trec", action="store_true",
                        help="list trec_eval's measure names and what they mean in rankwise")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _signature(family: Family) -> str:
    if family.cutoff == "required":
        return f"{family.name}@k"
    if family.cutoff == "optional":
        return f"{family.name}[@k]"
    return family.name


def _default_text(value: Any) -> str:
    from rankwise.measures.spec import format_value

    if value == ():
        return "none"
    return format_value(value)


def list_families() -> str:
    """The catalog as text: each family, its definition, parameters and defaults, reference.

    Returns
    -------
    str
    """
    from rankwise.measures import FAMILIES

    lines = ["Measures (name[@k]: cutoff optional, name@k: cutoff required)", ""]
    width = max(len(_signature(f)) for f in FAMILIES.values())
    for family in FAMILIES.values():
        lines.append(f"{_signature(family):<{width}}  {family.summary}")
        indent = " " * (width + 2)
        lines.append(f"{indent}= {family.formula}")
        if family.aliases:
            lines.append(f"{indent}aliases: {', '.join(family.aliases)}")
        if family.params:
            params = ", ".join(
                f"{key}={_default_text(param.default)}" for key, param in family.params.items()
            )
            lines.append(f"{indent}parameters (defaults): {params}")
        if family.name == "ndcg":
            lines.append(f"{indent}trec_eval's 'ndcg' (rankwise trec-eval, ndcg_cut.k) "
                         "is ndcg(gain=linear)")
        if family.reference:
            lines.append(f"{indent}reference: {family.reference}")
    lines += [
        "",
        "Syntax: NAME[@K][(KEY=VALUE,...)], for example ndcg@10, P@5(rel=2),",
        "ndcg@10(gain=linear), mrr@10, recall@1000. Names are case-insensitive.",
        "'rankwise measures NAME' shows the formula and reference of a family.",
        "",
        _TREC_NOTE,
    ]
    return "\n".join(lines) + "\n"


def describe_family(name: str) -> str:
    """One family in full: definition, formula, parameters, aggregate, reference.

    Parameters
    ----------
    name : str
        A family name or alias (``ndcg``, ``recip_rank``), or a measure (``ndcg@10``).

    Returns
    -------
    str

    Raises
    ------
    UnknownMeasureError
        When no family has that name (the message suggests the nearest).
    """
    from rankwise.measures import parse
    from rankwise.measures.catalog import lookup

    family = lookup(name.strip())
    if family is None:
        family = lookup(name.split("@")[0].split("(")[0].strip())
    if family is None:
        parse(name)  # raises UnknownMeasureError with a suggestion
        raise AssertionError("unreachable")  # pragma: no cover
    aggregate = {"mean": "arithmetic mean over queries", "gmean": "geometric mean over queries",
                 "sum": "sum over queries", "none": "none (text per query)"}[family.aggregate]
    lines = [f"{_signature(family)}: {family.summary}", f"  definition: {family.formula}"]
    if family.aliases:
        lines.append(f"  aliases: {', '.join(family.aliases)}")
    lines.append(f"  cutoff: {family.cutoff}")
    for key, param in family.params.items():
        lines.append(f"  parameter {key} (default {_default_text(param.default)}): {param.doc}")
    lines.append(f"  aggregate: {aggregate}")
    if family.name in _MEANINGS:
        lines += textwrap.wrap(_MEANINGS[family.name], width=88, initial_indent="  meaning: ",
                               subsequent_indent="    ")
    if family.reference:
        lines.append(f"  reference: {family.reference}")
    return "\n".join(lines) + "\n"


def list_trec_names() -> str:
    """trec_eval's names, each with the rankwise measures it stands for.

    Returns
    -------
    str
    """
    from rankwise.measures.trec_names import NICKNAMES, TREC_MEASURES, parse_trec

    rows = []
    for name in TREC_MEASURES:
        entries = parse_trec(name)
        measures = [e.measure for e in entries]
        if measures == [None]:
            meaning = "the run's id (the last line's 6th field)"
        elif len(measures) > 1 and all(m is not None and m.cutoff for m in measures):
            first = measures[0]
            assert first is not None
            generic = str(first).replace(f"@{first.cutoff}", "@k", 1)
            cutoffs = ",".join(str(m.cutoff) for m in measures if m is not None)
            meaning = f"{generic}, default k = {cutoffs}"
        else:
            meaning = ", ".join(str(m) for m in measures)
        rows.append((name, meaning))
    width = max(len(name) for name, _ in rows)
    lines = [f"{'trec_eval name':<{width}}  rankwise measure", ""]
    lines += [f"{name:<{width}}  {meaning}" for name, meaning in rows]
    lines += ["", "Nicknames:"]
    for nickname, members in NICKNAMES.items():
        lines.append(f"  {nickname}: {' '.join(members)}")
    lines += [
        "",
        "Parameters: name.params, e.g. P.5,10 (cutoffs), iprec_at_recall.0.1,0.5 (levels),",
        "Rprec_mult.0.5,2 (multiples of R), utility.2,-1,0,0, 11pt_avg.0.25,0.5,",
        "ndcg.1=3,2=9 (gain per grade), rbp.p=0.95, relstring.20, set_F.0.5.",
    ]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise measures``.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments (``names``, ``trec``).

    Returns
    -------
    int
        0.
    """
    if args.trec:
        text = list_trec_names()
    elif args.names:
        text = "\n".join(describe_family(name) for name in args.names)
    else:
        text = list_families()
    from rankwise.cli._output import write_output

    write_output(text, None)
    return 0
