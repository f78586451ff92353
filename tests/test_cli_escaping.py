"""Text from environments, the store and models reaches the terminal inert, and JSON output stays valid.

Hostile text carries Rich markup (a fake ``PASSED``), ANSI CSI and OSC 52 (clipboard) sequences, C1 controls, a
carriage return and backspaces (overwrite tricks), bidi overrides, a line separator and lone surrogates. Through
``spade validate`` (a lone surrogate in one candidate's error must not lose the reports after it), ``spade show``,
``spade list``, ``spade play`` and ``spade eval --compare``; ``spade_core.display`` is the one choke point.
"""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from spade_core.cli.main import cli
from spade_core.display import aligned_rows, clean, json_text, markup, text
from spade_core.evaluation import SuiteSummary, TaskResult, write_suite_run
from spade_core.evaluation.runner import SuiteRun
from spade_core.gym_bridge import open_store
from spade_registry.records import Status

FAKE = "[bold green]PASSED[/]"
HOSTILE = (f"\x1b[2J\x1b]52;c;aGFja2Vk\x07 {FAKE} \r FAKE OK \u202egnp.exe\u202c \x9b31m \x08\x08"
           " \u2028 \u2066iso\u2069 end")
SURROGATE = "lone \ud800 surrogate"


def inert(out: str) -> None:
    """Nothing in ``out`` can move the cursor, restyle, reorder, hide or fail to encode."""
    for i, char in enumerate(out):
        code = ord(char)
        bad = ((code < 0x20 and char not in "\n\t") or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000
               or code in (0x061C, 0x200E, 0x200F, 0x2028, 0x2029) or 0x202A <= code <= 0x202E
               or 0x2066 <= code <= 0x2069)
        assert not bad, f"raw {ascii(char)} at {i}: {out[max(0, i - 40):i + 40]!r}"
    out.encode("utf-8")


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=input)
    return result.exit_code, result.stdout, result.output


# -- the choke point -------------------------------------------------------------------------------------------------
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=200)


@given(value=ANY_TEXT)
def test_clean_text_is_inert_and_markup_renders_it_literally(value: str) -> None:
    cleaned = clean(value)
    inert(cleaned)
    if value.isascii() and value.isprintable():
        assert cleaned == value
    console = Console(file=io.StringIO(), force_terminal=False, width=1000, highlight=False)
    console.print(markup(value), end="")
    console.print(text(value), end="")
    rendered = console.file.getvalue()
    inert(rendered)
    assert "".join(rendered.split()) == "".join((cleaned + cleaned).split())  # (Rich expands tabs, may wrap)


@given(value=st.recursive(
    st.one_of(ANY_TEXT, st.floats(), st.integers(), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(ANY_TEXT, inner, max_size=4)),
    max_leaves=20,
))
def test_json_text_is_strict_ascii_json(value: object) -> None:
    line = json_text(value)
    assert line.isascii()
    json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    line.encode("utf-8")


def test_aligned_rows_keep_whole_values() -> None:
    long_id = "spade/" + "N" * 80 + "-v12"
    lines = aligned_rows([("id", "domain"), (long_id, "games"), ("spade/X-v0", HOSTILE)])
    assert long_id in lines[1]
    for line in lines:
        inert(line)
        assert "\n" not in line


# -- spade validate --------------------------------------------------------------------------------------------------
COUNTER = '''
ENV_SPEC = {{
    "name": "{name}",
    "domain": "games",
    "description": "Say the next number.",
    "reward_range": [0.0, 1.0],
    "max_turns": 6,
}}


class Counter:
    def __init__(self):
        self.count = 0

    def reset(self, rng, options):
        raise ValueError({message!r})

    def step(self, action):
        return "x", 0.0, False, False, {{}}

    def privileged_hint(self):
        return "count"

    def reference_action(self):
        return "1"
'''


def test_validate_prints_hostile_error_text_inertly_and_loses_no_report(tmp_path: Path, store_path: Path) -> None:
    folder = tmp_path / "candidates"
    folder.mkdir()
    (folder / "a_surrogate.py").write_text(COUNTER.format(name="SurrogateA", message=SURROGATE), encoding="utf-8")
    (folder / "b_hostile.py").write_text(COUNTER.format(name="HostileB", message=HOSTILE), encoding="utf-8")
    (folder / "c_after.py").write_text(COUNTER.format(name="AfterC", message="plain failure"), encoding="utf-8")
    code, stdout, output = run("--store", str(store_path), "validate", str(folder), "--register")
    assert code == 1, output
    inert(output)
    flat = output.replace("\n", "")  # (Rich wraps at 80 columns when stdout is not a terminal)
    for name in ("a_surrogate.py", "b_hostile.py", "c_after.py"):
        assert name in flat
    assert output.count("REJECTED") == 3
    assert FAKE.replace(" ", "") in flat.replace(" ", "")  # shown as the text it is, never as markup
    assert "\\x1b[2J" in flat and "\\u202e" in flat and "\\ud800" in flat

    fresh = tmp_path / "fresh.sqlite3"  # (the first run stored the candidates: here they would be duplicates)
    code, stdout, _ = run("--store", str(fresh), "validate", str(folder), "--json")
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert [Path(r["file"]).name for r in rows] == ["a_surrogate.py", "b_hostile.py", "c_after.py"]
    assert all(line.isascii() for line in stdout.splitlines())
    assert "\ufffd" in rows[0]["message"] and "\x1b]52;" in rows[1]["message"]


# -- spade show / spade list -----------------------------------------------------------------------------------------
def hostile_record(store_path: Path, name: str) -> int:
    code = (f"TITLE = {HOSTILE!r}\n# raw in a comment: {HOSTILE}\nRAW = '''\x1b]52;c;cmF3\x07\u202e'''\n"
            f"LONE = {SURROGATE!r}\n")
    manifest = {"name": name, "domain": "games", "description": HOSTILE, "reward_range": [0.0, 1.0],
                "max_turns": 3, "tags": [FAKE]}
    report = {"message": f"{HOSTILE} {SURROGATE}", "stages": [{"stage": FAKE, "observed": HOSTILE}]}
    record, _ = open_store(store_path).add(code=code, manifest=manifest, status=Status.FAILED,
                                           failed_stage="instantiate", report=report)
    return record.rid


def test_show_prints_stored_code_manifest_and_report_inertly(store_path: Path) -> None:
    rid = hostile_record(store_path, "ShownHostile")
    code, stdout, output = run("--store", str(store_path), "show", f"#{rid}")
    assert code == 0, output
    inert(output)
    assert "\\x1b]52;c;cmF3\\x07" in output and "TITLE" in output
    code, stdout, output = run("--store", str(store_path), "show", f"#{rid}", "--report")
    assert code == 0, output
    inert(output)
    report = json.loads(stdout.split("\n", 1)[1])
    assert report["message"].startswith("\x1b[2J") and "\ufffd" in report["message"]


def test_list_prints_whole_ids_when_not_a_terminal_and_valid_json(store_path: Path) -> None:
    name = "L" + "ong" * 26
    manifest = {"name": name, "domain": "games", "description": "d", "reward_range": [0.0, 1.0], "max_turns": 3}
    open_store(store_path).add(code="VALUE = 1", manifest=manifest, status=Status.ACCEPTED)
    hostile_record(store_path, "ListedHostile")
    code, stdout, output = run("--store", str(store_path), "list", "--status", "all")
    assert code == 0, output
    inert(output)
    assert f"spade/{name}-v0" in stdout.split()
    assert "spade/TicTacToe-v0" in stdout.split()
    code, stdout, _ = run("--store", str(store_path), "list", "--status", "all", "--json")
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert f"spade/{name}-v0" in {r["id"] for r in rows}
    assert any(r["tags"] == [FAKE] for r in rows) and stdout.isascii()


# -- spade play ------------------------------------------------------------------------------------------------------
PLAYED = '''
ENV_SPEC = {{
    "name": "{name}",
    "domain": "games",
    "description": "Say go.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
}}


class Hostile:
    def __init__(self):
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        return {hostile!r}, {{}}

    def step(self, action):
        self.turn = self.turn + 1
        done = self.turn >= 2
        return "obs " + {hostile!r}, 1.0 if done else 0.0, done, False, {{"success": done,
                "format_error": None if done else {fake!r}}}

    def privileged_hint(self):
        return "[red]hint[/]" + {hostile!r}

    def reference_action(self):
        return "go" + {hostile!r}
'''


def test_play_prints_observations_hints_and_actions_inertly(store_path: Path) -> None:
    name = f"PlayedHostile{uuid.uuid4().hex[:8]}"
    hostile = HOSTILE.replace("\r", " ")  # the sandbox channel is JSON text; every other control goes through
    source = PLAYED.format(name=name, hostile=hostile, fake=FAKE)
    manifest = {"name": name, "domain": "games", "description": "Say go.", "reward_range": [0.0, 1.0],
                "max_turns": 2}
    open_store(store_path).add(code=source, manifest=manifest, status=Status.ACCEPTED)
    code, stdout, output = run("--store", str(store_path), "play", f"spade/{name}-v0", "--auto", "--hint",
                               "--seed", "0")
    assert code == 0, output
    inert(output)
    flat = output.replace("\n", "").replace(" ", "")
    assert "[red]hint[/]" in flat and FAKE.replace(" ", "") in flat and "\\x1b]52;c;aGFja2Vk\\x07" in flat
    summary = json.loads(stdout.strip().splitlines()[-1])
    assert summary["success"] is True


# -- spade eval --------------------------------------------------------------------------------------------------------
def test_eval_compare_prints_stored_names_inertly(tmp_path: Path) -> None:
    suite = f"suite {HOSTILE}"
    for folder, model, outcomes in (("a", f"base {FAKE}", [False] * 6), ("b", f"tuned {SURROGATE}", [True] * 6)):
        results = [TaskResult(suite, f"t{i} {HOSTILE}", ok, float(ok), 1, 0, "terminated",
                              error=SURROGATE, info={"note": HOSTILE, "x": float("nan")})
                   for i, ok in enumerate(outcomes)]
        write_suite_run(SuiteRun(suite, model, results, SuiteSummary.from_results(suite, model, results)),
                        tmp_path / folder)
    for line in (tmp_path / "a").glob("*.jsonl"):
        for row in line.read_text(encoding="utf-8").splitlines():
            json.loads(row, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    code, stdout, output = run("eval", "--compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert code == 0, output
    inert(output)
    assert FAKE.replace(" ", "") in output.replace("\n", "").replace(" ", "")
    code, stdout, _ = run("eval", "--compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json")
    assert code == 0 and stdout.isascii()
    assert json.loads(stdout)[0]["suite"] == suite
