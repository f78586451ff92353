"""The single-machine path never imports Ray, and asking for Ray without it installed says how to install it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from click.testing import CliRunner

from spade_core.cli.main import cli


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


def test_single_machine_path_never_imports_ray() -> None:
    result = _python("""
        import sys
        import spade_core.selfplay.loop, spade_core.rollout.runner, spade_core.cli.main, spade_core.scale
        from spade_core.rollout.env_pool import LocalEnvPool, make_with_gymnasium
        from spade_core.rollout.runner import EpisodeRunner
        from spade_core.rollout.specs import EpisodeSpec
        from spade_core.scale import LocalScaleOut, open_scale_out
        from spade_core.selfplay.config import SelfPlayConfig
        from spade_core.selfplay.loop import SelfPlay

        config = SelfPlayConfig()
        SelfPlay(config)
        scale = open_scale_out(config.ray)
        assert isinstance(scale, LocalScaleOut) and scale.env_pool is None and scale.iteration_metrics() == {}
        pool = LocalEnvPool(make_with_gymnasium)
        env = pool.acquire(EpisodeSpec("spade/ArithmeticChain-v0", 0))
        ((obs, info),) = pool.reset_many([(env, 0, {"hint": True})])
        assert obs.startswith("Compute") and "hint" in info
        (report,) = scale.validate_many([("bad", "def broken(:\\n")])
        assert report.failed_stage == "structure"
        pool.close()
        assert "ray" not in sys.modules, sorted(m for m in sys.modules if m.startswith("ray"))
        print("no-ray-ok")
    """)
    assert result.returncode == 0 and "no-ray-ok" in result.stdout, result.stderr[-3000:]


def test_asking_for_ray_without_it_names_the_extra() -> None:
    result = _python("""
        import sys
        sys.modules["ray"] = None  # what an environment without Ray looks like to `import ray`
        from spade_core.scale import RayNotInstalledError, open_scale_out
        from spade_core.selfplay.config import RaySection

        try:
            open_scale_out(RaySection(address="auto"))
        except RayNotInstalledError as exc:
            print(exc)
    """)
    assert result.returncode == 0, result.stderr[-3000:]
    assert 'pip install "spade-rl[ray]"' in result.stdout and "--ray" in result.stdout


def test_cli_ray_option_is_documented_and_maps_to_the_config() -> None:
    result = CliRunner().invoke(cli, ["selfplay", "--help"])
    assert result.exit_code == 0 and "--ray [ADDRESS]" in result.output and "spade-rl[ray]" in result.output
    command = cli.commands["selfplay"]
    assert command.make_context("selfplay", ["--ray", "--iterations", "1"]).params["ray_address"] == "local"
    assert command.make_context("selfplay", ["--ray", "auto"]).params["ray_address"] == "auto"
    assert command.make_context("selfplay", []).params["ray_address"] is None
