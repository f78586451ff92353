"""Ordinary designer-style environment code must compile and run under the policy, exactly as it does in-process."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_support import HERE, load_in_process

from spade_core.contract.inner import LocalInnerEnv, find_env_class
from spade_core.sandbox import SandboxedInnerEnv, load_env_module
from spade_registry.manifest import EnvManifest

CORPUS = sorted((HERE / "corpus_ok").glob("*.py"))


def test_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 5


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_runs_in_sandbox_like_in_process(path: Path, pool) -> None:
    source = path.read_text()
    loaded = load_env_module(source, env_id=path.stem, pool=pool)
    assert loaded.ok, f"{path.name}: {loaded.error}"
    manifest = EnvManifest.from_dict(loaded.spec, source=path.name)

    module = load_in_process(path)
    cls = find_env_class(vars(module), module_name=module.__name__, where=path.name)
    assert cls.__name__ == loaded.class_name
    knobs = manifest.knob_defaults()
    local = LocalInnerEnv(cls, knobs)
    remote = SandboxedInnerEnv(source, env_id=path.stem, knobs=knobs, pool=pool)
    try:
        for seed in (0, 1, 2):
            assert remote.reset(seed, {}) == local.reset(seed, {})
            for _ in range(manifest.max_turns):
                assert remote.privileged_hint() == local.privileged_hint()
                action = local.reference_action()
                assert remote.reference_action() == action
                got, want = remote.step(action), local.step(action)
                assert got == want
                if want[2] or want[3]:
                    break
            assert remote.step("nonsense action") == local.step("nonsense action")
    finally:
        remote.close()
