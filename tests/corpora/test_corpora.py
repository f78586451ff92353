"""Corpora: the embedded wiki summaries, JSONL, Parquet and Hugging Face datasets behind one interface."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from spade_core.corpora import (
    Corpus,
    CorpusConfigError,
    CorpusError,
    CorpusFormatError,
    CorpusNotFoundError,
    DocumentNotFoundError,
    open_corpus,
    topic_weights_for,
)
from spade_core.corpora.hf import HFDatasetCorpus
from spade_core.corpora.jsonl import JsonlCorpus
from spade_core.corpora.parquet import ParquetCorpus
from spade_core.corpora.wiki import WikiOfflineCorpus

TOPICS = ["algebra", "probability", "history", "games"]


def _rows(n: int = 40) -> list[dict]:
    return [
        {"id": f"d{i}", "title": f"Doc {i}", "text": f"Document number {i} about {TOPICS[i % 4]}.",
         "topics": [TOPICS[i % 4]] + (["probability"] if i % 10 == 0 else [])}
        for i in range(n)
    ]


@pytest.fixture
def jsonl_path(tmp_path: Path) -> Path:
    path = tmp_path / "docs.jsonl"
    lines = [json.dumps(r) for r in _rows()]
    lines.insert(5, "")  # blank lines are skipped
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def parquet_path(tmp_path: Path) -> Path:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "docs.parquet"
    pq.write_table(pa.Table.from_pylist(_rows()), path, row_group_size=7)  # 6 row groups
    return path


@pytest.fixture
def hf_saved(tmp_path: Path) -> Path:
    datasets = pytest.importorskip("datasets")
    path = tmp_path / "saved"
    datasets.Dataset.from_list(_rows()).save_to_disk(str(path))
    return path


# -- the embedded wiki corpus --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wiki() -> WikiOfflineCorpus:
    return WikiOfflineCorpus()


def test_wiki_corpus_reads_the_installed_package(wiki: WikiOfflineCorpus) -> None:
    assert 9_000 <= len(wiki) <= 12_000
    topics = wiki.topics()
    assert len(topics) == 12 and topics["Mathematics"] > 100
    doc = wiki.get("Pythagorean theorem")
    assert doc.topics == ("Mathematics",) and "right triangle" in doc.text and doc.source == "wiki"
    assert doc.meta["description"]
    assert "Pythagorean theorem" in wiki and "No such article, surely" not in wiki
    first = next(iter(wiki))
    assert first.doc_id == wiki.doc_ids()[0] and first.text


def test_wiki_unknown_document_and_language_are_typed_errors(wiki: WikiOfflineCorpus) -> None:
    with pytest.raises(DocumentNotFoundError, match="no document 'Nope'") as info:
        wiki.get("Nope")
    assert isinstance(info.value, KeyError) and isinstance(info.value, CorpusError)
    with pytest.raises(CorpusNotFoundError, match="available: .*en-us"):
        WikiOfflineCorpus("xx-yy")
    assert len(WikiOfflineCorpus("fr-fr")) > 5_000


def test_sampling_is_deterministic_prefix_stable_and_distinct(wiki: WikiOfflineCorpus) -> None:
    a = wiki.sample(20, seed=7)
    assert [d.doc_id for d in a] == [d.doc_id for d in wiki.sample(20, seed=7)]
    assert [d.doc_id for d in wiki.sample(5, seed=7)] == [d.doc_id for d in a[:5]]
    assert len({d.doc_id for d in a}) == 20
    assert {d.doc_id for d in a} != {d.doc_id for d in wiki.sample(20, seed=8)}


def test_domain_topic_weights_shift_the_sample(wiki: WikiOfflineCorpus) -> None:
    weights = topic_weights_for(wiki, {"mathematics": 20.0, "Physical sciences": 4.0, "*": 0.2, "astrology": 5.0})
    assert weights == {"Mathematics": 20.0, "Physical sciences": 4.0, "*": 0.2}
    math_share = Counter(t for d in wiki.sample(100, seed=1, topic_weights=weights) for t in d.topics)
    uniform_share = Counter(t for d in wiki.sample(100, seed=1) for t in d.topics)
    assert math_share["Mathematics"] > 30 > 3 * uniform_share["Mathematics"]  # ~45% vs ~2.6% expected
    only = wiki.sample(30, seed=3, topic_weights={"Mathematics": 1.0})
    assert all(d.topics == ("Mathematics",) for d in only)


def test_bad_topic_weights_are_rejected(wiki: WikiOfflineCorpus) -> None:
    with pytest.raises(CorpusConfigError, match="no document"):
        wiki.sample(3, seed=0, topic_weights={"Astrology": 1.0})
    with pytest.raises(CorpusConfigError, match="finite and >= 0"):
        wiki.sample(3, seed=0, topic_weights={"Mathematics": -1})
    with pytest.raises(CorpusConfigError, match="negative"):
        wiki.sample(-1, seed=0)
    assert wiki.sample(0, seed=0) == []


# -- JSONL -----------------------------------------------------------------------------------------------------------
def test_jsonl_index_lookup_iteration(jsonl_path: Path) -> None:
    corpus = JsonlCorpus(jsonl_path)
    assert isinstance(corpus, Corpus) and len(corpus) == 40
    assert corpus.get("d13").text == "Document number 13 about probability." and corpus.get("d13").title == "Doc 13"
    assert corpus.get("d10").topics == ("history", "probability")
    assert [d.doc_id for d in corpus] == [f"d{i}" for i in range(40)]
    assert corpus.topics()["probability"] == 10 + 4  # the ten i % 4 == 1 documents, plus d0, d10, d20, d30


def test_jsonl_reads_text_from_disk_on_demand(jsonl_path: Path) -> None:
    corpus = JsonlCorpus(jsonl_path)
    assert len(corpus) == 40  # index built
    raw = jsonl_path.read_text()
    jsonl_path.write_text(raw.replace("Document number 3 ", "Modified number 3 "))  # same length, same offsets
    assert corpus.get("d3").text.startswith("Modified number 3")


def test_jsonl_bad_lines_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "text": "ok"}\n{"id": "b", "text": \n')
    with pytest.raises(CorpusFormatError, match=r"bad.jsonl:2: not valid JSON"):
        len(JsonlCorpus(path))
    path.write_text('{"id": "a", "text": "ok"}\n[1, 2]\n')
    with pytest.raises(CorpusFormatError, match=r":2: expected a JSON object"):
        len(JsonlCorpus(path))
    path.write_text('{"id": "a", "body": "ok"}\n')
    with pytest.raises(CorpusFormatError, match=r":1: text field 'text' is missing"):
        len(JsonlCorpus(path))
    assert JsonlCorpus(path, text_field="body").get("a").text == "ok"
    path.write_text('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n')
    with pytest.raises(CorpusFormatError, match="appears twice"):
        len(JsonlCorpus(path))
    numbered = JsonlCorpus(path, id_field=None)
    assert [d.doc_id for d in numbered] == ["0", "1"] and numbered.get("1").text == "y"
    path.write_text('{"text": "x"}\n')
    with pytest.raises(CorpusFormatError, match="id field 'id' is missing.*id_field=None"):
        len(JsonlCorpus(path))
    with pytest.raises(CorpusNotFoundError) as info:
        JsonlCorpus(tmp_path / "missing.jsonl")
    assert isinstance(info.value, FileNotFoundError)


def test_n_beyond_the_eligible_documents_repeats_them_in_new_rounds(jsonl_path: Path) -> None:
    corpus = JsonlCorpus(jsonl_path)
    docs = corpus.sample(25, seed=2, topic_weights={"history": 1.0})
    ids = [d.doc_id for d in docs]
    assert len(set(ids[:10])) == 10 and set(ids) == {f"d{i}" for i in range(2, 40, 4)}


# -- Parquet and HF datasets: the same documents, the same samples ------------------------------------------------
def test_parquet_reads_by_row_group(parquet_path: Path) -> None:
    corpus = ParquetCorpus(parquet_path)
    assert len(corpus) == 40 and corpus.get("d39").text.endswith("games.")
    assert [d.doc_id for d in corpus] == [f"d{i}" for i in range(40)]
    docs = corpus.sample(12, seed=4)
    assert all(corpus.get(d.doc_id) == d for d in docs)


def test_parquet_folder_and_missing_columns(tmp_path: Path, parquet_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "many"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(_rows()[:20]), folder / "a.parquet", row_group_size=5)
    pq.write_table(pa.Table.from_pylist(_rows()[20:]), folder / "b.parquet", row_group_size=5)
    both = ParquetCorpus(folder)
    assert len(both) == 40 and both.get("d25").title == "Doc 25"
    with pytest.raises(CorpusFormatError, match=r"no column\(s\) \['body'\]"):
        ParquetCorpus(parquet_path, text_field="body")


def test_all_indexed_formats_sample_the_same_documents(jsonl_path: Path, parquet_path: Path, hf_saved: Path) -> None:
    weights = {"probability": 3.0, "*": 1.0}
    expected = [d.doc_id for d in JsonlCorpus(jsonl_path).sample(15, seed=11, topic_weights=weights)]
    for corpus in (ParquetCorpus(parquet_path), HFDatasetCorpus(hf_saved)):
        assert [d.doc_id for d in corpus.sample(15, seed=11, topic_weights=weights)] == expected
    streaming = HFDatasetCorpus(jsonl_path, streaming=True)
    assert streaming.streaming
    # the streaming reservoir draws the same keys in the same order, so it agrees too
    assert [d.doc_id for d in streaming.sample(15, seed=11, topic_weights=weights)] == expected


def test_hf_saved_dataset_and_streaming_files(hf_saved: Path, jsonl_path: Path) -> None:
    mapped = HFDatasetCorpus(hf_saved)
    assert not mapped.streaming and len(mapped) == 40 and mapped.get("d7").topics == ("games",)
    streaming = HFDatasetCorpus(jsonl_path, streaming=True)
    assert len(streaming) == 40 and streaming.get("d7").text == mapped.get("d7").text
    assert streaming.topics() == mapped.topics()
    with pytest.raises(DocumentNotFoundError):
        streaming.get("zzz")
    assert [d.doc_id for d in streaming][:3] == ["d0", "d1", "d2"]


def test_hf_never_downloads(tmp_path: Path) -> None:
    with pytest.raises(CorpusNotFoundError, match="never downloads"):
        HFDatasetCorpus("someone/certainly-not-cached-dataset", cache_dir=str(tmp_path / "cache"))


def test_hf_missing_split_and_column(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    path = tmp_path / "dd"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(_rows(4))}).save_to_disk(str(path))
    assert len(HFDatasetCorpus(path)) == 4
    with pytest.raises(CorpusConfigError, match="no split 'test'"):
        HFDatasetCorpus(path, split="test")
    with pytest.raises(CorpusConfigError, match="no column"):
        HFDatasetCorpus(path, text_field="body")


# -- resolving references and topic weighting ---------------------------------------------------------------------
def test_open_corpus_by_name_prefix_and_path(jsonl_path: Path, parquet_path: Path, hf_saved: Path) -> None:
    assert isinstance(open_corpus(), WikiOfflineCorpus) and open_corpus("wiki:fr-fr").name == "wiki:fr-fr"
    assert isinstance(open_corpus(f"jsonl:{jsonl_path}"), JsonlCorpus)
    assert isinstance(open_corpus(str(jsonl_path)), JsonlCorpus)
    assert isinstance(open_corpus(str(parquet_path)), ParquetCorpus)
    assert isinstance(open_corpus(str(hf_saved)), HFDatasetCorpus)
    assert open_corpus(str(jsonl_path), text_field="title").get("d1").text == "Doc 1"
    with pytest.raises(CorpusNotFoundError, match="unknown corpus"):
        open_corpus("no-such-corpus")


def test_domain_topics_match_corpus_topics_by_name(jsonl_path: Path, wiki: WikiOfflineCorpus) -> None:
    corpus = JsonlCorpus(jsonl_path)
    assert topic_weights_for(corpus, {"Probability": 2.0, "number theory": 1.0}) == {
        "probability": 2.0, "*": 0.1,
    }
    assert topic_weights_for(corpus, {"number theory": 1.0, "*": 3.0}) is None
    assert topic_weights_for(wiki, {}) is None and topic_weights_for(wiki, None) is None
