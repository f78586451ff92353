"""A pack environment needing a domain or a sandbox module that no installed plugin provides is refused on its own,
with a message naming what to install; the pack's other environments still import."""

from __future__ import annotations

from pathlib import Path

from pack_helpers import source_store, variant

from spade_core.gym_bridge import open_store
from spade_core.packs import export_pack, import_pack, open_pack
from spade_core.packs.requirements import MISSING_PLUGIN_STAGE
from spade_core.validation.pipeline import _manifest_of
from spade_registry.records import Status


def _add_unvalidated(store, code: str) -> None:
    """Store ``code`` as an accepted designer record the way a store that has the plugin would hold it."""
    store.add(code=code, manifest=_manifest_of(code), status=Status.ACCEPTED, provenance={"source": "designer"})


def test_each_environment_needing_a_missing_plugin_is_refused_by_name_and_the_rest_import(tmp_path: Path) -> None:
    source = source_store(tmp_path / "source.sqlite3", ["NeedsNothing"])
    chemistry = variant("NeedsChemistry").replace('"domain": "games"', '"domain": "chemistry"', 1)
    assert '"domain": "chemistry"' in chemistry
    _add_unvalidated(source, chemistry)
    _add_unvalidated(source, variant("NeedsLabTool") + "\nfrom spade_chem_tools.lab import Flask\n")
    pack = export_pack(source, tmp_path / "pack", name="needs", find_parents=False).path

    target = open_store(tmp_path / "target.sqlite3")
    report = import_pack(open_pack(str(pack)), target)
    by_pack = {o.pack_id: o for o in report.outcomes}
    assert by_pack["spade/NeedsNothing-v0"].verdict == "accepted"
    assert target.get("spade-pack/NeedsNothing-v0").status is Status.ACCEPTED

    domain = by_pack["spade/NeedsChemistry-v0"]
    assert (domain.verdict, domain.stage) == ("rejected", MISSING_PLUGIN_STAGE)
    assert "install the plugin that provides domain 'chemistry'" in domain.reason, domain.reason
    tool = by_pack["spade/NeedsLabTool-v0"]
    assert (tool.verdict, tool.stage) == ("rejected", MISSING_PLUGIN_STAGE)
    assert "install the plugin that provides module 'spade_chem_tools.lab'" in tool.reason, tool.reason
    assert report.validated == 1  # the refused ones never reach the gate
