"""The ENV_SPEC schema rejects bad manifests with a message naming the field."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.errors import ManifestError
from spade_registry.manifest import EnvManifest

GOOD = {
    "name": "Good", "domain": "math", "description": "d", "reward_range": [0, 1], "max_turns": 4,
    "difficulty": {"level": {"min": 1, "max": 5, "default": 2}},
}


def test_round_trip() -> None:
    manifest = EnvManifest.from_dict(GOOD)
    again = EnvManifest.from_dict(manifest.to_dict())
    assert again == manifest
    assert manifest.knob_defaults() == {"level": 2}


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"name": "bad-name"}, "name"),
        ({"name": "a:b"}, "name"),
        ({"domain": "Math!"}, "domain"),
        ({"reward_range": [1, 0]}, "reward_range"),
        ({"reward_range": [0, float("inf")]}, "reward_range"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": True}, "max_turns"),
        ({"players": 9}, "players"),
        ({"difficulty": {"level": {"min": 3, "max": 1, "default": 2}}}, "difficulty.level"),
        ({"difficulty": {"_x": {"min": 0, "max": 1, "default": 0}}}, "difficulty._x"),
        ({"tools": "calculator"}, "tools"),
        ({"colour": "red"}, "colour"),
        ({"description": ""}, "description"),
    ],
)
def test_bad_field_is_named(patch: dict, field: str) -> None:
    with pytest.raises(ManifestError) as info:
        EnvManifest.from_dict({**GOOD, **patch})
    assert info.value.field == field
    assert repr(field) in str(info.value)


@pytest.mark.parametrize("missing", ["name", "domain", "description", "reward_range", "max_turns"])
def test_missing_required_field(missing: str) -> None:
    data = {k: v for k, v in GOOD.items() if k != missing}
    with pytest.raises(ManifestError, match=f"'{missing}': is required"):
        EnvManifest.from_dict(data)


@given(st.dictionaries(st.text(max_size=12), st.one_of(st.none(), st.integers(), st.text(max_size=5)), max_size=6))
def test_arbitrary_dicts_never_crash(data: dict) -> None:
    try:
        EnvManifest.from_dict(data)
    except ManifestError as exc:
        assert isinstance(exc.field, str)
        assert "ENV_SPEC" in str(exc)
