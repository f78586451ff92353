"""``import spade_core`` stays light: no torch, transformers, ray, trl, vllm, peft, sentence_transformers or sympy.

Any RL code pays the import before its first ``gymnasium.make``, so the package, plugin discovery (every installed
plugin's module and every hook's answer) and the settings modules that configs are parsed with must not pull in a
heavy dependency. Each check runs in a fresh interpreter and reads ``sys.modules`` there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("torch", "transformers", "ray", "trl", "vllm", "peft", "sentence_transformers", "sympy")
NEVER = ("torch", "transformers", "ray", "trl", "vllm", "peft", "sentence_transformers")
"""Never imported by ``import spade_core``. ``sympy`` may load once, when a new or changed seed environment is
synced into the store (seed modules are imported to read their manifests); every later import skips it."""

PROBE = """
import json, sys
{body}
heavy = {heavy!r}
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in heavy)))
"""


def heavy_modules_after(body: str, store: Path) -> list[str]:
    code = PROBE.format(body=body, heavy=HEAVY)
    env = {**os.environ, "SPADE_STORE": str(store)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_spade_core_on_a_new_store_imports_nothing_heavy(tmp_path: Path) -> None:
    # A new store: the import syncs every plugin's seed environments (the heaviest path of the import).
    store = tmp_path / "new.sqlite3"
    assert [name for name in heavy_modules_after("import spade_core", store) if name.split(".")[0] in NEVER] == []
    assert store.exists()


@pytest.fixture(scope="module")
def synced_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose bundled seeds are already synced (what every import after the first one sees)."""
    store = tmp_path_factory.mktemp("imports") / "synced.sqlite3"
    heavy_modules_after("import spade_core", store)
    return store


def test_import_spade_core_on_a_synced_store_imports_nothing_heavy(synced_store: Path) -> None:
    body = (
        "import gymnasium as gym, spade_core\n"
        "assert any(k.startswith('spade/') for k in gym.registry), 'no spade environment registered'"
    )
    assert heavy_modules_after(body, synced_store) == []


def test_plugin_discovery_and_every_hook_import_nothing_heavy(synced_store: Path) -> None:
    body = (
        "from spade_core.plugins import hookspecs\n"
        "from spade_core.plugins.manager import get_plugins\n"
        "plugins = get_plugins()\n"
        "for hook in hookspecs.all_hook_names():\n"
        "    plugins.collect(hook)\n"
        "assert not plugins.failures, plugins.failures\n"
        "assert {p.name for p in plugins.loaded} >= {'core', 'reference_trainer', 'trl_trainer', 'math'}"
    )
    # a hook's answer may import what its contribution needs (the math domain's API reference reads sympy's
    # functions); never one of the NEVER modules
    assert [name for name in heavy_modules_after(body, synced_store) if name.split(".")[0] in NEVER] == []


@pytest.mark.parametrize("module", [
    "spade_core.training.settings",
    "spade_trainers.reference.config",
    "spade_trainers.trl.config",
    "spade_core.selfplay.config",
    "spade_core.cli.main",
    "spade_domains.math.plugin",
])
def test_settings_and_cli_modules_import_nothing_heavy(module: str, synced_store: Path) -> None:
    assert heavy_modules_after(f"import {module}", synced_store) == []


def test_configs_parse_without_torch(synced_store: Path) -> None:
    """A whole self-play config with LoRA and sharding settings is read and checked before any model exists."""
    body = (
        "from spade_trainers.reference.config import ReferenceTrainerConfig\n"
        "from spade_trainers.trl.config import TRLTrainerConfig\n"
        "ref = ReferenceTrainerConfig.from_mapping({'lora': {'r': 4, 'target_modules': ['q_proj']}, "
        "'sharding': 'replicate'})\n"
        "assert ref.lora.r == 4 and ref.lora.target_modules == ('q_proj',)\n"
        "TRLTrainerConfig.from_mapping({'lora': {'r': 2}})"
    )
    assert heavy_modules_after(body, synced_store) == []


def test_a_heavy_import_is_detected(synced_store: Path) -> None:
    """The probe itself sees a heavy module when one is imported (so the checks above can fail)."""
    assert "sympy" in heavy_modules_after("import spade_domains.math.verify", synced_store)


def test_importing_a_plugin_module_first_keeps_its_hooks_and_seeds(synced_store: Path) -> None:
    """A plugin module imported before ``spade_core`` runs discovery while it is half-made: discovery must neither
    register it without hooks for good nor retire its seed environments from the store."""
    count = (
        "from spade_registry.records import Status, Trust\n"
        "from spade_registry.store import RegistryStore\n"
        "import os\n"
        "with RegistryStore(os.environ['SPADE_STORE']) as s:\n"
        "    print(len(s.query(trust=Trust.BUNDLED, status=Status.ACCEPTED)))\n"
    )
    env = {**os.environ, "SPADE_STORE": str(synced_store)}

    def bundled() -> int:
        out = subprocess.run([sys.executable, "-c", count], env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return int(out.stdout.strip().splitlines()[-1])

    before = bundled()
    assert before > 0
    body = (
        "import spade_domains.math.plugin\n"
        "from spade_core.plugins.manager import get_plugins\n"
        "plugins = get_plugins()\n"
        "assert plugins.complete and not plugins.failures, (plugins.pending, plugins.failures)\n"
        "seeds = [s.module for s in plugins.collect_flat('spade_seed_environments')]\n"
        "assert 'spade_domains.math.seeds.arithmetic_chain' in seeds, seeds"
    )
    assert heavy_modules_after(body, synced_store) == []
    assert bundled() == before
