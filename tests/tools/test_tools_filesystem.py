"""The in-memory file system tool: BFCL-style commands, atomic failures, snapshots."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_tools.filesystem import MAX_DEPTH, MAX_FILE_CHARS, FileSystem

TREE = {"home": {"notes.txt": "a\nb\nneedle here", "docs": {"x.pdf": "pdf", ".hidden": "h"}}, "tmp": {}}


def fresh() -> FileSystem:
    return FileSystem(TREE, cwd="/home")


def test_navigation_and_listing() -> None:
    fs = fresh()
    assert fs.call("pwd") == {"current_working_directory": "/home"}
    assert fs.call("ls")["entries"] == ["docs/", "notes.txt"]
    assert fs.call("ls", {"path": "docs"})["entries"] == ["x.pdf"]
    assert fs.call("ls", {"path": "docs", "a": True})["entries"] == [".hidden", "x.pdf"]
    assert fs.call("cd", {"folder": "docs/../../tmp"}) == {"current_working_directory": "/tmp"}
    assert fs.call("cd", {"folder": "/"}) == {"current_working_directory": "/"}
    assert fs.call("cd", {"folder": ".."}) == {"current_working_directory": "/"}


def test_file_commands() -> None:
    fs = fresh()
    assert fs.call("cat", {"file_name": "notes.txt"})["file_content"] == "a\nb\nneedle here"
    assert fs.call("grep", {"file_name": "notes.txt", "pattern": "needle"})["matching_lines"] == ["needle here"]
    fs.call("echo", {"content": "hi", "file_name": "/tmp/new.txt"})
    fs.call("echo", {"content": "!", "file_name": "/tmp/new.txt", "append": True})
    assert fs.call("cat", {"file_name": "/tmp/new.txt"})["file_content"] == "hi!"
    assert fs.call("echo", {"content": "just print"}) == {"terminal_output": "just print"}
    assert fs.call("touch", {"file_name": "/tmp/new.txt"})["created"] is False
    assert fs.call("touch", {"file_name": "/tmp/empty"})["created"] is True
    assert fs.call("find", {"path": "/", "name": "pdf"})["matches"] == ["/home/docs/x.pdf"]


def test_mv_cp_rm_semantics() -> None:
    fs = fresh()
    assert fs.call("mv", {"source": "notes.txt", "destination": "/tmp"})["to"] == "/tmp/notes.txt"
    assert fs.call("mv", {"source": "/tmp/notes.txt", "destination": "/tmp/renamed.txt"})["to"] == "/tmp/renamed.txt"
    assert fs.call("cp", {"source": "docs", "destination": "/tmp/docs_copy"})["to"] == "/tmp/docs_copy"
    fs.call("echo", {"content": "changed", "file_name": "/tmp/docs_copy/x.pdf"})
    assert fs.call("cat", {"file_name": "docs/x.pdf"})["file_content"] == "pdf"  # the copy is deep
    assert "already exists" in fs.call("mv", {"source": "/tmp/renamed.txt", "destination": "/tmp/docs_copy/x.pdf"})["error"]
    assert "into itself" in fs.call("mv", {"source": "/tmp", "destination": "/tmp/docs_copy"})["error"]
    assert "recursive" in fs.call("rm", {"file_name": "/tmp/docs_copy"})["error"]
    assert fs.call("rm", {"file_name": "/tmp/docs_copy", "recursive": True}) == {"removed": "/tmp/docs_copy"}
    assert "current directory" in fs.call("rm", {"file_name": "/home", "recursive": True})["error"]
    assert "current directory" in fs.call("mv", {"source": "/home", "destination": "/tmp"})["error"]


def test_mkdir() -> None:
    fs = fresh()
    assert fs.call("mkdir", {"dir_name": "/tmp/a"}) == {"created": "/tmp/a"}
    assert "already exists" in fs.call("mkdir", {"dir_name": "/tmp/a"})["error"]
    assert "parents=true" in fs.call("mkdir", {"dir_name": "/tmp/b/c"})["error"]
    assert fs.call("mkdir", {"dir_name": "/tmp/b/c/d", "parents": True}) == {"created": "/tmp/b/c/d"}
    assert fs.snapshot()["root"]["tmp"]["b"] == {"c": {"d": {}}}
    assert "is a file" in fs.call("mkdir", {"dir_name": "notes.txt/x"})["error"]


@pytest.mark.parametrize(("name", "arguments", "needle"), [
    ("cat", {"file_name": "missing"}, "no such file"),
    ("cat", {"file_name": "docs"}, "is a directory"),
    ("cd", {"folder": "notes.txt"}, "is a file"),
    ("ls", {"path": 3}, "argument 'path' must be string, got integer"),
    ("mv", {"source": "notes.txt"}, "missing required argument 'destination'"),
    ("lss", {}, "did you mean 'ls'"),
    ("echo", {"content": "x" * (MAX_FILE_CHARS + 1), "file_name": "big"}, "at most"),
    ("touch", {"file_name": "a/../.."}, "'/' is a directory"),
])
def test_failures_are_reported_and_change_nothing(name: str, arguments: dict, needle: str) -> None:
    fs = fresh()
    before = fs.snapshot()
    result = fs.call(name, arguments)
    assert needle in result["error"]
    assert fs.snapshot() == before


def test_depth_is_bounded_so_snapshots_never_recurse_too_far() -> None:
    fs = fresh()
    deep = "/".join(["d"] * MAX_DEPTH)
    assert "error" not in fs.call("mkdir", {"dir_name": "/" + deep, "parents": True})
    assert "levels deep" in fs.call("mkdir", {"dir_name": "/" + deep + "/x"})["error"]
    assert "levels deep" in fs.call("mv", {"source": "/d", "destination": "/tmp"})["error"]
    assert "levels deep" in fs.call("cp", {"source": "/d", "destination": "/tmp/copy"})["error"]
    assert FileSystem(fs.snapshot()["root"]).snapshot() == fs.snapshot()


def test_snapshot_is_json_and_restorable_and_independent() -> None:
    fs = fresh()
    snap = fs.snapshot()
    json.dumps(snap)
    assert FileSystem(snap["root"]).snapshot() == snap
    fs.call("rm", {"file_name": "notes.txt"})
    assert "notes.txt" in snap["root"]["home"]  # the snapshot is a copy, not a view
    assert TREE["home"]["notes.txt"]  # the scenario given to the constructor is never mutated


def test_bad_scenarios_are_refused() -> None:
    with pytest.raises(ValueError):
        FileSystem({"a/b": "x"})
    with pytest.raises(ValueError):
        FileSystem({"a": 3})
    with pytest.raises(ValueError):
        FileSystem({"a": {}}, cwd="/nope")


NAMES = st.sampled_from(["a", "b", "c.txt", "..", ".", "/", "/a", "a/b", "/tmp", "home/docs", "x/../c.txt"])
CALLS = st.one_of(
    st.tuples(st.just("ls"), st.fixed_dictionaries({"path": NAMES})),
    st.tuples(st.just("cd"), st.fixed_dictionaries({"folder": NAMES})),
    st.tuples(st.just("mkdir"), st.fixed_dictionaries({"dir_name": NAMES})),
    st.tuples(st.just("touch"), st.fixed_dictionaries({"file_name": NAMES})),
    st.tuples(st.just("echo"), st.fixed_dictionaries({"content": st.text(max_size=5), "file_name": NAMES})),
    st.tuples(st.just("mv"), st.fixed_dictionaries({"source": NAMES, "destination": NAMES})),
    st.tuples(st.just("cp"), st.fixed_dictionaries({"source": NAMES, "destination": NAMES})),
    st.tuples(st.just("rm"), st.fixed_dictionaries({"file_name": NAMES, "recursive": st.booleans()})),
    st.tuples(st.just("find"), st.fixed_dictionaries({"path": NAMES})),
)


@settings(derandomize=True, deadline=None, max_examples=60)
@given(calls=st.lists(CALLS, max_size=15))
def test_random_call_sequences_keep_a_consistent_tree(calls) -> None:
    fs = fresh()
    for name, arguments in calls:
        before = fs.snapshot()
        result = fs.call(name, arguments)
        json.dumps(result)
        if "error" in result:
            assert fs.snapshot() == before
        snap = fs.snapshot()
        assert FileSystem(snap["root"]).snapshot() == snap
        assert fs.call("pwd")["current_working_directory"].startswith("/")
