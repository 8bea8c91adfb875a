"""Query texts (topics) and document texts (collections): rankwise.io.texts (issue 39)."""

from __future__ import annotations

import gzip
from collections import namedtuple
from pathlib import Path

import pytest

from rankwise.exceptions import InputFormatError, InvalidParameterError
from rankwise.io.texts import as_documents, as_topics, read_documents, read_topics

TREC_TOPICS = """<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international
criminal activity.

<narr> Narrative:
A relevant document must as a minimum identify the organization.
</top>

<top>
<num> Number: 302
<title> Topic: Poliomyelitis and Post-Polio
<desc> Description:
Is the disease of Poliomyelitis (polio) under control in the world?
</top>
"""

WEB_TOPICS = """<webtrack2009>
<topic number="1" type="faceted">
  <query>obama family tree</query>
  <description>Find information on President Barack Obama&apos;s family
  history.</description>
</topic>
<topic number="2" type="ambiguous">
  <query>french lick resort and casino</query>
  <description>Find information on the French Lick Resort &amp; Casino.</description>
</topic>
</webtrack2009>
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_trec_topics_each_part(tmp_path: Path) -> None:
    path = write(tmp_path / "topics.301-302", TREC_TOPICS)
    assert read_topics(path) == {"301": "International Organized Crime",
                                 "302": "Poliomyelitis and Post-Polio"}
    assert read_topics(path, field="description") == {
        "301": "Identify organizations that participate in international criminal activity.",
        "302": "Is the disease of Poliomyelitis (polio) under control in the world?"}
    with pytest.raises(InputFormatError, match=r"topics.301-302:13: topic 302 has no "
                                               r"narrative \(<narr>\)"):
        read_topics(path, field="narrative")


def test_web_track_topics(tmp_path: Path) -> None:
    path = write(tmp_path / "wt09.topics.xml", WEB_TOPICS)
    assert read_topics(path) == {"1": "obama family tree", "2": "french lick resort and casino"}
    assert read_topics(path, field="description")["2"] == \
        "Find information on the French Lick Resort & Casino."


def test_tsv_and_jsonl_and_compressed(tmp_path: Path) -> None:
    tsv = write(tmp_path / "queries.tsv", "1048585\twhat is paula deen's brother\n"
                "2\ta\ttab inside\n\n3\t\"quoted\" text\n")
    assert read_topics(tsv) == {"1048585": "what is paula deen's brother",
                                "2": "a\ttab inside", "3": '"quoted" text'}
    jsonl = write(tmp_path / "queries.jsonl",
                  '{"query_id": "301", "title": "T", "description": "D", "x": 1}\n'
                  '{"query_id": "302", "title": "U", "description": null, "x": "s"}\n')
    assert read_topics(jsonl) == {"301": "T", "302": "U"}
    assert read_topics(jsonl, field="description") == {"301": "D", "302": ""}
    numbers = write(tmp_path / "n.jsonl", '{"qid": 7, "text": "seven"}\n{"qid": 8, '
                                          '"text": "eight"}\n')
    assert read_topics(numbers) == {"7": "seven", "8": "eight"}
    packed = tmp_path / "queries.tsv.gz"
    packed.write_bytes(gzip.compress(tsv.read_bytes()))
    assert read_topics(packed) == read_topics(tsv)


def test_documents_keep_only_those_asked_for(tmp_path: Path) -> None:
    collection = write(tmp_path / "collection.tsv",
                       "".join(f"{i}\tpassage number {i}\n" for i in range(1000)))
    assert read_documents(collection, ids=["7", "999", "nope"]) == {
        "7": "passage number 7", "999": "passage number 999"}
    assert len(read_documents(collection)) == 1000
    jsonl = write(tmp_path / "docs.jsonl",
                  '{"doc_id": "d1", "title": "Title", "body": "Body.", "url": "x"}\n'
                  '{"doc_id": "d2", "title": null, "body": "Only a body."}\n')
    assert read_documents(jsonl) == {"d1": "Title. Body.", "d2": "Only a body."}
    with pytest.raises(InputFormatError, match="TREC topics are not a collection"):
        read_documents(write(tmp_path / "t.txt", TREC_TOPICS))


def test_objects(tmp_path: Path) -> None:
    Query = namedtuple("TrecQuery", "query_id title description narrative")
    queries = [Query("301", "International Organized Crime", "d", "n")]
    assert as_topics(queries) == {"301": "International Organized Crime"}
    assert as_topics(queries, field="description") == {"301": "d"}
    assert as_topics({301: "text"}) == {"301": "text"}
    Doc = namedtuple("GenericDoc", "doc_id text")

    class Store:  # ir_datasets' docs_store(): get_many(ids) -> {id: doc}
        def get_many(self, ids: list[str]) -> dict[str, object]:
            return {i: Doc(i, f"text {i}") for i in ids if i.startswith("d")}

    assert as_documents(Store(), ids=["d1", "x2"]) == {"d1": "text d1"}
    assert as_documents([Doc("d1", "one"), Doc("d2", "two")], ids=["d2"]) == {"d2": "two"}
    with pytest.raises(InvalidParameterError, match="give ids="):
        as_documents(Store())
    with pytest.raises(InputFormatError, match=r"item 0: expected named tuples"):
        as_topics([("301", "text")])


@pytest.mark.parametrize(("name", "text", "message"), [
    ("t.txt", "<top>\n<title> no number\n</top>\n",
     r"t.txt:1: a topic without a number \(<num> Number: 301\)"),
    ("t.txt", TREC_TOPICS + TREC_TOPICS, r"t.txt:19: topic 301 is given twice"),
    ("t.txt", "nothing here\n", r"t.txt:1: expected 2 fields \(query id<TAB>text\), got 1"),
    ("q.tsv", "1\tone\n2 two\n", r"q.tsv:2: expected 2 fields \(query id<TAB>text\), got 1"),
    ("q.tsv", "1\tone\n2\ttwo\n1\tagain\n", r"q.tsv:3: query '1' is given twice"),
    ("q.tsv", "", r"q.tsv: file is empty"),
    ("q.jsonl", '{"query_id": "1", "text": "a"}\n{"query_id": 2, "text": "b"}\n',
     r"q.jsonl:2: field 'query_id' is a number here \(2\) but text in line 1"),
    ("q.jsonl", '{"id": "1", "body": "a"}\n', r"q.jsonl:1: no query text field"),
    ("q.jsonl", '{"name": "1", "text": "a"}\n', r"q.jsonl:1: no query id field"),
    ("q.jsonl", '{"qid": "1", "text": "a"}\nnot json\n', r"q.jsonl:2: not valid JSON"),
])
def test_bad_topics_name_the_file_and_line(tmp_path: Path, name: str, text: str,
                                           message: str) -> None:
    path = write(tmp_path / name, text)
    with pytest.raises(InputFormatError, match=f"^{tmp_path}/{message}"):
        read_topics(path)


def test_bad_collections_name_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "c.tsv"
    path.write_bytes(b"d1\tfine\nd2\t\xff\xfe broken\n")
    with pytest.raises(InputFormatError, match=r"c.tsv:2: not UTF-8 text \(byte 0xff"):
        read_documents(path)
    duplicate = write(tmp_path / "d.tsv", "d1\ta\nd2\tb\nd1\tc\n")
    with pytest.raises(InputFormatError, match=r"d.tsv:3: document 'd1' is given twice"):
        read_documents(duplicate, ids=["d1"])
    assert read_documents(duplicate, ids=["d2"]) == {"d2": "b"}  # the others are not read
