"""A run's directory and store: --fresh moves an earlier run aside (nothing deleted), and a run writes its own
store unless pointed at another."""

from __future__ import annotations

from pathlib import Path

from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.records import RUN_STORE_FILE, set_aside
from spade_core.selfplay.wiring import run_store
from spade_core.typed_config import load_config


def test_fresh_moves_an_earlier_run_aside_under_a_new_name_each_time(tmp_path: Path) -> None:
    run_dir = tmp_path / "selfplay"
    assert set_aside(run_dir) is None  # nothing there yet
    run_dir.mkdir()
    assert set_aside(run_dir) is None  # an empty folder holds no run
    moved = []
    for n in range(2):
        run_dir.mkdir(exist_ok=True)
        (run_dir / "metrics.jsonl").write_text(f"run {n}\n")
        moved.append(set_aside(run_dir))
    assert not run_dir.exists() and len(set(moved)) == 2
    assert [p.parent for p in moved] == [tmp_path, tmp_path] and all(p.name.startswith("selfplay-") for p in moved)
    assert sorted((p / "metrics.jsonl").read_text() for p in moved) == ["run 0\n", "run 1\n"]  # nothing deleted


def test_a_run_writes_its_own_store_unless_pointed_at_another(tmp_path: Path) -> None:
    own = load_config(SelfPlayConfig, None, [f"run_dir={tmp_path / 'run'}"])
    assert Path(run_store(own)) == tmp_path / "run" / RUN_STORE_FILE
    other = load_config(SelfPlayConfig, None, [f"run_dir={tmp_path / 'run'}", f"store={tmp_path / 'mine.sqlite3'}"])
    assert Path(run_store(other)) == tmp_path / "mine.sqlite3"
