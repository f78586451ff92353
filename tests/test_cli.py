"""The ``spade`` command line, driven through click's runner and a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from spade_core.cli.main import cli


def run(*args: str, input: str | None = None, stdout_only: bool = False) -> tuple[int, str]:
    """Exit code and output (stdout and stderr together, or stdout alone for machine-readable output)."""
    result = CliRunner().invoke(cli, list(args), input=input)
    return result.exit_code, result.stdout if stdout_only else result.output


def test_version_and_help() -> None:
    code, out = run("--version")
    assert code == 0 and out.startswith("spade, version ")
    code, out = run("--help")
    assert code == 0 and all(cmd in out for cmd in ("list", "show", "play", "plugins"))


def test_list_json_has_required_fields() -> None:
    code, out = run("list", "--json", stdout_only=True)
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    ids = {r["id"] for r in rows}
    assert {"spade/TicTacToe-v0", "spade/ArithmeticChain-v0"} <= ids
    assert all({"id", "domain", "status"} <= set(r) for r in rows)
    code, out = run("list", "--json", "--domain", "math", stdout_only=True)
    assert code == 0 and {json.loads(line)["domain"] for line in out.splitlines()} == {"math"}


def test_list_rejects_unknown_status() -> None:
    code, out = run("list", "--status", "bogus")
    assert code == 2 and "unknown status" in out


def test_show_prints_manifest_and_code() -> None:
    code, out = run("show", "spade/TicTacToe-v0")
    assert code == 0 and '"players": 2' in out and "class TicTacToe" in out


def test_show_unknown_id_is_a_clean_error() -> None:
    code, out = run("show", "spade/Missing-v0")
    assert code == 1 and "no environment spade/Missing-v0" in out


def test_play_two_player_game_from_stdin() -> None:
    # X takes the top row while O plays elsewhere; one malformed move along the way.
    code, out = run("play", "spade/TicTacToe-v0", "--seed", "0", input="1\n4\nhello\n2\n5\n3\n")
    assert code == 0, out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["rewards"] == [1.0, -1.0] and summary["success"] is True
    assert "format error" in out


def test_play_auto_runs_headless_with_hint() -> None:
    code, out = run("play", "ArithmeticChain-v0", "--auto", "--hint", "--knob", "terms=2")
    assert code == 0 and "hint:" in out
    assert json.loads(out.strip().splitlines()[-1])["success"] is True


def test_plugins_lists_distribution() -> None:
    code, out = run("plugins")
    assert code == 0 and "spade-rl" in out and "games" in out


def test_console_script_is_installed() -> None:
    out = subprocess.run([sys.executable, "-m", "spade_core.cli.main", "list", "--json"], capture_output=True,
                         text=True, timeout=120, check=True)
    assert "spade/TicTacToe-v0" in out.stdout
