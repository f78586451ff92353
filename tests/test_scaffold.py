"""``spade new domain NAME``: the package it writes installs, is listed by ``spade plugins``, and passes its own
tests (which run its seed through SPADE's gate) unchanged; bad names and occupied targets are refused first."""

from __future__ import annotations

import ast
import keyword
import os
import string
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.cli.main import cli
from spade_core.scaffold import ScaffoldError, domain_plugin_files, write_domain_plugin
from spade_core.scaffold.domain_plugin import MAX_NAME_CHARS, check_domain_name

sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))
from make_verifiers_env import parent_site_dirs  # noqa: E402


@given(st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_a_name_is_a_short_lowercase_identifier_or_refused(name: str) -> None:
    valid = (0 < len(name) <= MAX_NAME_CHARS and name[0] in string.ascii_lowercase
             and set(name) <= set(string.ascii_lowercase + string.digits + "_") and not keyword.iskeyword(name))
    try:
        check_domain_name(name)
    except ScaffoldError as exc:
        assert not valid, exc
        assert repr(name) in str(exc)
    else:
        assert valid


@pytest.mark.parametrize("name", ["math", "code"])
def test_a_loaded_domain_name_is_refused(name: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["new", "domain", name, "--dir", str(tmp_path / "pkg")])
    assert result.exit_code == 1 and "already loaded" in result.output
    assert not (tmp_path / "pkg").exists()


def test_an_occupied_target_is_refused_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ScaffoldError, match="not an empty directory"):
        write_domain_plugin("logic", tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_every_python_file_parses_and_names_the_domain() -> None:
    files = domain_plugin_files("unit_puzzles")
    for path, body in files.items():
        if path.endswith(".py"):
            ast.parse(body, filename=path)
        assert "$" not in body.replace("$$", ""), f"{path} keeps an unfilled placeholder"
    assert 'unit_puzzles = "spade_unit_puzzles.plugin"' in files["pyproject.toml"]
    assert '"domain": "unit_puzzles"' in files["spade_unit_puzzles/seeds/clock_shift.py"]


def _environment_beside_this_one(target: Path) -> Path:
    """A virtual environment that sees this interpreter's packages (SPADE included), for installing the plugin."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(target)
    python = target / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    lines = [f"import site; site.addsitedir({d!r})" for d in parent_site_dirs()]
    (Path(purelib) / "zz-parent.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return python


def test_the_package_installs_is_listed_and_passes_its_own_tests(tmp_path: Path) -> None:
    package = tmp_path / "spade-logic"
    result = CliRunner().invoke(cli, ["new", "domain", "logic", "--dir", str(package)])
    assert result.exit_code == 0, result.output
    python = _environment_beside_this_one(tmp_path / "env")
    env = {**os.environ, "SPADE_STORE": str(tmp_path / "registry.sqlite3"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(package)], check=True,
                   env=env, capture_output=True)
    listed = subprocess.run([str(python), "-m", "spade_core.cli.main", "plugins"], env={**env, "COLUMNS": "300"},
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith("│ logic "))
    assert "spade-logic" in row and "domains: logic" in row and "failed" not in listed.stderr
    tested = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=package, env=env,
                            capture_output=True, text=True, timeout=300)
    assert tested.returncode == 0, tested.stdout[-3000:] + tested.stderr[-2000:]
    assert "3 passed" in tested.stdout
