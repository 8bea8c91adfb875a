"""One pass per input form (issue 34, step 7): an argument enters each module of io/ and data/ once.

The judgments and the run are followed from the front door (``evaluate``,
``compare``, ``evaluate_runs``, ``build_report``, ``explain``, ``reproduce``)
to the engine, in every form (a path of each format, a dict, pandas / polars
/ Arrow tables, named tuples, Qrels and Run objects), by tracing the calls
(``sys.setprofile``): the module each call runs in, taken in order, must not
come back to a module of io/ or data/ once it has left it.

What counts:

- the argument's pass begins at the first call into io/ or data/ that
  receives the argument itself, and ends when that call hands back the
  Qrels or Run it made (what the engine then reads of that object is the
  engine's, not the pass); it also ends where the engine starts to rank;
- a call from module A into module B places the argument in A (the caller)
  and then in B; a module is left when the argument is placed in another;
- the private helper modules (``io/_source.py``, ``io/_fast.py``,
  ``io/_forms.py``, ``data/_arrow.py``, ``data/_rows.py``, ...) are tools: they
  run inside the stay of the module that calls them, and are not stays of
  their own.

Before this step, ``compare``'s judgments read from a CSV file went
io/coerce > io/tables > io/coerce > io/tables > ... (13 stays, 10 of them
returns to a module already left); a run in a CSV file, 17 stays.
"""

from __future__ import annotations

import sys
from collections import namedtuple
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import rankwise as rw

# the package's folder name: a module counts by its path inside it, wherever it was loaded
# from (the fast suite against an installed wheel also imports a copy of the package for its
# doctests, which may then be the module a test gets: .ci/test_installed.py)
PACKAGE = Path(rw.__file__).parent.name
QRELS = {f"q{i}": {f"d{j}": (i + j) % 3 for j in range(5)} for i in range(6)}
RUN_A = {f"q{i}": {f"d{j}": float(10 - j) for j in range(1, 8)} for i in range(6)}
RUN_B = {f"q{i}": {f"d{j}": float(j) for j in range(1, 8)} for i in range(6)}
MEASURES = ["ndcg@10(gain=linear)", "map", "P@5"]
RANKING = ("rank_all_ties", "rank_run_dict", "evaluate_ranking")  # where the engine starts
Qrel = namedtuple("Qrel", "query_id doc_id relevance")
ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")


def _module(code: Any) -> str | None:
    """``io/coerce.py``: the path of *code*'s module in the package; None outside it."""
    parts = Path(code.co_filename).parts
    if PACKAGE not in parts[:-1]:
        return None
    inside = parts[len(parts) - parts[::-1].index(PACKAGE):]
    return "/".join(inside)


def _is_io(module: str | None) -> bool:
    return module is not None and module.startswith(("io/", "data/"))


def _is_tool(module: str) -> bool:
    return Path(module).name.startswith("_") and Path(module).name != "__init__.py"


def _stay_of(frame: Any) -> str | None:
    """The module a frame's call counts in: a tool's caller's (tools run inside its stay)."""
    while frame is not None:
        module = _module(frame.f_code)
        if module is None or not (_is_io(module) and _is_tool(module)):
            return module
        frame = frame.f_back
    return None


def modules_of_the_pass(call: Callable[[], Any], argument: Any) -> list[str]:
    """The modules of io/ and data/ the pass of *argument* goes through, in order."""
    from rankwise.data import Qrels, Run

    stays: list[str] = []
    entered: set[int] = set()  # the frames that received the argument itself
    finished = False

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal finished
        if finished:
            return
        if event == "return" and id(frame) in entered:
            entered.discard(id(frame))
            finished = isinstance(arg, (Qrels, Run))
            return
        if event != "call" or frame.f_code.co_name == "<module>":
            return
        if frame.f_code.co_name in RANKING:
            finished = True
            return
        module = _module(frame.f_code)
        if not _is_io(module):
            return
        outer = frame
        while outer is not None and id(outer) not in entered:
            outer = outer.f_back
        if outer is None:  # a new pass of the argument begins only where it is received
            if not any(value is argument for value in frame.f_locals.values()):
                return
            entered.add(id(frame))
        for stay in (_stay_of(frame.f_back), _stay_of(frame)):
            if _is_io(stay) and (not stays or stays[-1] != stay):
                stays.append(stay)  # type: ignore[arg-type]

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return stays


def _rows(data: dict[str, dict[str, float]]) -> list[tuple[str, str, float]]:
    return [(q, d, v) for q, docs in data.items() for d, v in docs.items()]


def _files(folder: Path, name: str, rows: list[tuple[Any, ...]], columns: list[str],
           trec: Callable[[tuple[Any, ...]], str]) -> Iterator[tuple[str, Any]]:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.json
    import pyarrow.parquet as pq

    table = pa.table(dict(zip(columns, map(list, zip(*rows)))))
    pq.write_table(table, folder / f"{name}.parquet")
    yield "parquet file", str(folder / f"{name}.parquet")
    pacsv.write_csv(table, folder / f"{name}.csv")
    yield "csv file", str(folder / f"{name}.csv")
    text = "\n".join("\t".join(map(str, row)) for row in rows)
    (folder / f"{name}.tsv").write_text("\t".join(columns) + "\n" + text + "\n")
    yield "tsv file", str(folder / f"{name}.tsv")
    import json

    (folder / f"{name}.jsonl").write_text(
        "".join(json.dumps(dict(zip(columns, row))) + "\n" for row in rows))
    yield "jsonl file", str(folder / f"{name}.jsonl")
    (folder / f"{name}.trec").write_text("".join(trec(row) for row in rows))
    yield "trec file", str(folder / f"{name}.trec")


def _forms(folder: Path, kind: str, data: dict[str, dict[str, float]], name: str
           ) -> Iterator[tuple[str, Any]]:
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    from rankwise.io import as_qrels, as_run

    rows = _rows(data)
    if kind == "qrels":
        columns = ["query_id", "doc_id", "relevance"]
        yield from _files(folder, name, rows, columns, lambda r: f"{r[0]} 0 {r[1]} {r[2]}\n")
    else:
        columns = ["query_id", "doc_id", "score"]
        yield from _files(folder, name, rows, columns,
                          lambda r: f"{r[0]} Q0 {r[1]} 1 {r[2]} {name}\n")
    frame = pd.DataFrame(rows, columns=columns)
    yield "dict", data
    yield "pandas", frame
    yield "polars", pl.from_pandas(frame)
    yield "arrow", pa.Table.from_pandas(frame, preserve_index=False)
    yield "records", [(Qrel if kind == "qrels" else ScoredDoc)(*row) for row in rows]
    yield "object", as_qrels(data) if kind == "qrels" else as_run(data, name=name)


def _cases() -> list[tuple[str, str, str]]:
    forms = ["parquet file", "csv file", "tsv file", "jsonl file", "trec file", "dict",
             "pandas", "polars", "arrow", "records", "object"]
    return [(front, kind, form) for front in FRONTS for kind in ("qrels", "run") for form in forms]


FRONTS = ("evaluate", "compare", "evaluate_runs", "build_report", "explain", "reproduce")


def _front_door(front: str, qrels: Any, run: Any, other: Any) -> Callable[[], Any]:
    """The call of *front* with these judgments and runs."""
    calls: dict[str, Callable[[], Any]] = {
        "evaluate": lambda: rw.evaluate(qrels, run, MEASURES),
        "compare": lambda: rw.compare(qrels, {"a": run, "b": other}, MEASURES, seed=0),
        "evaluate_runs": lambda: rw.evaluate_runs(qrels, {"a": run, "b": other}, MEASURES),
        "build_report": lambda: rw.build_report(qrels, {"a": run, "b": other}, MEASURES,
                                                curves=(), seed=0, n_resamples=100,
                                                discriminative_power=None),
        "explain": lambda: rw.explain(qrels, run, "map", "trec_eval", "ranx"),
        "reproduce": lambda: rw.reproduce(qrels, run, other, ["map", "P@5"]),
    }
    return calls[front]


def _values(got: Any) -> str:
    """What a front door computed, as text (to compare a traced call with an untraced one)."""
    if isinstance(got, dict):
        return str({name: results.to_pandas() for name, results in got.items()})
    if hasattr(got, "comparison"):  # a Report: its results and comparison
        return str((_values(got.results), got.comparison.to_pandas()))
    for export in ("to_pandas", "to_dict"):
        if hasattr(got, export):
            return str(getattr(got, export)())
    return repr(got)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    folder = tmp_path_factory.mktemp("forms")
    found: dict[tuple[str, str], Any] = {}
    for kind, data, name in (("qrels", QRELS, "qrels"), ("run", RUN_A, "a"),
                             ("other", RUN_B, "b")):
        for form, value in _forms(folder, "run" if kind == "other" else kind, data, name):
            found[kind, form] = value
    return found


@pytest.mark.parametrize(("front", "kind", "form"), _cases())
def test_each_module_of_io_and_data_is_entered_once(
        inputs: dict[tuple[str, str], Any], front: str, kind: str, form: str) -> None:
    from rankwise.io import as_qrels, as_run

    argument = inputs[kind, form]
    qrels = argument if kind == "qrels" else as_qrels(QRELS)
    run = argument if kind == "run" else as_run(RUN_A, name="a")
    other = inputs["other", form] if kind == "run" else as_run(RUN_B, name="b")
    if form == "records":  # a generator is read once: a fresh list of records for each call
        argument = list(argument)
        qrels, run = (argument, run) if kind == "qrels" else (qrels, argument)
    call = _front_door(front, qrels, run, other)
    want = call()  # the modules are imported before the trace (an import is not the pass)
    stays = modules_of_the_pass(call, argument)
    again = [module for i, module in enumerate(stays) if module in stays[:i]]
    assert again == [], f"{' > '.join(stays)}: {again} entered again after being left"
    assert stays[0] == "io/coerce.py", stays  # the one dispatcher first
    # a dict run evaluated alone is ranked from the dict (the numpy engine's fast path): no Run
    fast_path = kind == "run" and form == "dict" and front in ("evaluate", "explain")
    if form != "object" and not fast_path:
        assert stays[-1] == f"data/{'qrels' if kind == 'qrels' else 'run'}.py", stays
    assert _values(call()) == _values(want)  # and the pass changes nothing: as untraced


def test_the_trace_sees_a_module_entered_twice() -> None:
    """The tracer itself: a pass that goes back to a module it left is caught."""
    from rankwise.io import coerce, records

    def twice() -> Any:
        coerce.refuse_empty_dict(QRELS, "qrels")  # io/coerce, then
        records.records_table(QRELS)  # io/records (not named tuples: nothing), then
        return coerce.as_qrels(QRELS)  # io/coerce again, io/dicts, data/qrels

    stays = modules_of_the_pass(twice, QRELS)
    assert stays == ["io/coerce.py", "io/records.py", "io/coerce.py", "io/dicts.py",
                     "data/qrels.py"]
