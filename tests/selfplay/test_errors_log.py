"""A failed self-play phase keeps its traceback in RUN_DIR/errors.log, and its line in metrics.jsonl says where."""

from __future__ import annotations

from pathlib import Path

from short_selfplay import overrides

from spade_core.plugins import get_plugins, hookimpl
from spade_core.plugins.contributions import DomainSpec
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay
from spade_core.selfplay.metrics import read_metrics
from spade_core.selfplay.records import ERRORS_FILE
from spade_core.typed_config import load_config


class BrokenDomainPlugin:
    """A domain whose environments import a sandbox module no plugin provides: its designer cannot be built."""

    @hookimpl
    def spade_domains(self) -> list[DomainSpec]:
        return [DomainSpec(name="broken", description="lists a sandbox module nobody contributes",
                           designer_guidance="Write anything.", sandbox_modules=("no_such_plugin.helpers",))]


def test_a_failed_designer_phase_leaves_its_traceback(setup: dict[str, Path]) -> None:
    registry = get_plugins()
    assert registry.register(BrokenDomainPlugin(), "broken-domain")
    try:
        config = load_config(SelfPlayConfig, None, [*overrides(setup, "broken", iterations=1),
                                                    "designer.domains=[broken]"])
        SelfPlay(config).run()
    finally:
        registry.unregister("broken-domain")
    [metrics] = read_metrics(Path(config.run_dir))
    [error] = [e for e in metrics.errors if e.startswith("designer[broken]")]
    assert "PluginError" in error and "no_such_plugin.helpers" in error
    assert error.endswith(f"(traceback: {ERRORS_FILE}:1)")
    log = (Path(config.run_dir) / ERRORS_FILE).read_text().splitlines()
    assert log[0].startswith("== iteration 0 | designer[broken] | ")
    assert log[1] == "Traceback (most recent call last):"
    assert any("domain_material.py" in line for line in log) and "no_such_plugin.helpers" in log[-2]
    assert metrics.agent.episodes > 0  # the run went on without the designer
