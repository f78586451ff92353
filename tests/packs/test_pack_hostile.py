"""Hostile packs: tampered modules, forged hashes, bundled names, malformed files, hostile code, unsafe tarballs and
distributions that carry Python. Each is refused or rejected with its reason, and nothing of it runs on the host."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from pack_helpers import variant

from spade_core.cli.main import cli
from spade_core.gym_bridge import open_store, sync_seed_environments
from spade_core.packs import PackError, PackFormatError, PackRefusedError, export_pack, import_pack, open_pack
from spade_core.packs import budget as pack_budget_limits
from spade_core.packs import files as pack_file_limits
from spade_core.packs.distribution import write_wheel
from spade_core.packs.export import pack_files
from spade_core.packs.installed import installed_packs
from spade_core.packs.schema import (
    INDEX_FILE,
    MODULE_FILE,
    RECORD_FILE,
    Lineage,
    PackEnvironment,
    PackHeader,
    PackStats,
)
from spade_registry.hashing import content_hash
from spade_registry.records import Trust


def hand_pack(root: Path, sources: dict[str, str], *, name: str = "hostile") -> Path:
    """A well-formed pack of arbitrary module sources, as an attacker would write it (honest hashes)."""
    envs = []
    for env_id, code in sources.items():
        from spade_core.validation.pipeline import _manifest_of

        manifest = _manifest_of(code)
        envs.append(PackEnvironment(pack_id=env_id, name=env_id.split("/")[1].rsplit("-v", 1)[0], version=0,
                                    domain="games", status="accepted", tags=(), content_hash=content_hash(code),
                                    code=code, manifest=manifest, report={"status": "accepted", "forged": True},
                                    stats=PackStats(), lineage=Lineage()))
    header = PackHeader(name=name, description="", created_at="now", spade_version="0", made_by={})
    for rel, data in pack_files(header, envs).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def fresh_store(path: Path):
    store = open_store(path)
    sync_seed_environments(store)
    return store


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_tampered_module_forged_hash_and_edited_manifest_are_rejected(tmp_path: Path, make_source) -> None:
    source = make_source(["PackTamperA", "PackTamperB", "PackTamperC", "PackTamperD"])
    pack = export_pack(source, tmp_path / "pack", name="tamper", find_parents=False).path
    folder = lambda n: pack / "environments" / f"PackTamper{n}-v0"  # noqa: E731
    # A: the module changed after export, hashes left as they were
    module = folder("A") / MODULE_FILE
    module.write_text(module.read_text(encoding="utf-8").replace("return", "return  ", 1) + "\nEXTRA = 1\n")
    # B: the module changed and the record's hash forged to match it, the index left alone
    module_b = folder("B") / MODULE_FILE
    module_b.write_text(module_b.read_text(encoding="utf-8") + "\nEXTRA = 2\n")
    edit_json(folder("B") / RECORD_FILE, lambda d: d.update(content_hash=content_hash(module_b.read_text())))
    # C: a plausible hash that is not the module's, in both places
    forged = "ast:" + "0" * 64
    edit_json(folder("C") / RECORD_FILE, lambda d: d.update(content_hash=forged))
    edit_json(pack / INDEX_FILE, lambda d: d["environments"][2].update(content_hash=forged))
    # D: the manifest edited (a new description) while the code still declares the old one
    edit_json(folder("D") / RECORD_FILE, lambda d: d["manifest"].update(description="a better description"))

    store = fresh_store(tmp_path / "target.sqlite3")
    report = import_pack(open_pack(str(pack)), store)
    got = {o.pack_id.split("/")[1]: o for o in report.outcomes}
    assert got["PackTamperA-v0"].stage == "content_hash" and "changed after export" in got["PackTamperA-v0"].reason
    assert got["PackTamperB-v0"].stage == "pack_format" and "index says" in got["PackTamperB-v0"].reason
    assert got["PackTamperC-v0"].stage == "content_hash" and forged in got["PackTamperC-v0"].reason
    assert got["PackTamperD-v0"].stage == "pack_manifest"
    assert all(o.verdict == "rejected" for o in report.outcomes) and report.validated == 0
    assert not store.query(trust=Trust.DESIGNER)


def test_bundled_name_and_hostile_module_are_rejected_and_nothing_runs_on_the_host(tmp_path: Path) -> None:
    marker = tmp_path / "host-was-touched"
    hostile = variant("PackHostile").replace(
        "from functools import reduce", f"from functools import reduce\nopen({str(marker)!r}, 'w').write('x')", 1)
    escaping = variant("PackEscaping").replace(
        "def reset(", "def _unused(self):\n        pass\n\n    def reset(", 1).replace(
        "def reset(self", "def reset(self, *a, **k):\n        raise ValueError('\\x1b[2J[bold red]PASSED[/]')\n\n    def _old_reset(self", 1)
    pack = hand_pack(tmp_path / "pack", {"spade/Mastermind-v0": variant("Mastermind"),
                                         "spade/PackHostile-v0": hostile, "spade/PackEscaping-v0": escaping})
    store_path = tmp_path / "target.sqlite3"
    fresh_store(store_path)
    result = CliRunner().invoke(cli, ["--store", str(store_path), "import", str(pack), "--json"])
    assert result.exit_code == 1, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    by_id = {r["pack_id"]: r for r in rows if "pack_id" in r}
    assert by_id["spade/Mastermind-v0"]["verdict"] == "rejected"
    assert "belongs to the bundled environment" in by_id["spade/Mastermind-v0"]["reason"]
    assert by_id["spade/PackHostile-v0"]["verdict"] == "rejected" and by_id["spade/PackHostile-v0"]["stage"] == "policy"
    assert by_id["spade/PackEscaping-v0"]["verdict"] == "rejected"
    assert not marker.exists(), "the hostile module's code ran on the host"
    assert "\x1b" not in result.output and "\\u001b[2J[bold red]PASSED[/]" in result.output
    table = CliRunner().invoke(cli, ["--store", str(store_path), "import", str(pack)])
    assert "\x1b" not in table.output and "\\x1b" in table.output  # the escape is shown, never sent
    assert not marker.exists()


def test_a_module_too_deep_to_parse_is_rejected_and_the_import_goes_on(tmp_path: Path) -> None:
    pack = hand_pack(tmp_path / "pack", {"spade/PackShallow-v0": variant("PackShallow")})
    deep = "-" * 150_000 + "1\n"
    (pack / "environments" / "PackShallow-v0" / MODULE_FILE).write_text(deep, encoding="utf-8")
    (outcome,) = import_pack(open_pack(str(pack)), fresh_store(tmp_path / "t.sqlite3")).outcomes
    assert outcome.verdict == "rejected" and outcome.stage == "content_hash"


def test_malformed_index_is_refused_naming_file_and_field(tmp_path: Path, make_source) -> None:
    source = make_source(["PackMalformedA"])
    pack = export_pack(source, tmp_path / "pack", name="bad", find_parents=False).path
    cases = [
        (lambda d: d.update(format="zip"), "format"),
        (lambda d: d.update(format_version=99), "format_version"),
        (lambda d: d.update(name="../etc"), "name"),
        (lambda d: d["environments"][0].update(path="../../outside"), "environments[0].path"),
        (lambda d: d["environments"][0].update(id="spade/Bad-Name-v0x"), "environments[0].id"),
        (lambda d: d.update(environments={"a": 1}), "environments"),
    ]
    original = (pack / INDEX_FILE).read_text(encoding="utf-8")
    for change, field in cases:
        (pack / INDEX_FILE).write_text(original, encoding="utf-8")
        edit_json(pack / INDEX_FILE, change)
        with pytest.raises(PackFormatError) as caught:
            open_pack(str(pack))
        assert caught.value.file == INDEX_FILE and caught.value.field == field, str(caught.value)
    (pack / INDEX_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(PackFormatError, match="pack.json"):
        open_pack(str(pack))
    (pack / INDEX_FILE).write_text(original, encoding="utf-8")
    edit_json(pack / "environments" / "PackMalformedA-v0" / RECORD_FILE, lambda d: d["stats"].update(plays="many"))
    (broken,) = import_pack(open_pack(str(pack)), fresh_store(tmp_path / "t.sqlite3")).outcomes
    assert broken.stage == "pack_format" and "record.json" in broken.reason and "'plays'" in broken.reason


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


@pytest.mark.parametrize(("members", "needle"), [
    ([(_member("../escape.txt"), b"x")], "path traversal"),
    ([(_member("/etc/passwd-pack"), b"x")], "not a plain relative path"),
    ([(_member("pack.json", tarfile.SYMTYPE, "/etc/passwd"), b"")], "a link"),
    ([(_member("README.md"), b"x"), (_member("pack.json", tarfile.LNKTYPE, "README.md"), b"")], "a link"),
    ([(_member("dev", tarfile.CHRTYPE), b"")], "not a regular file"),
    ([(_member("pack.json"), b"{}"), (_member("pack.json"), b"{}")], "appears twice"),
])
def test_unsafe_tarballs_are_refused_and_nothing_is_extracted(tmp_path: Path, members, needle: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    tarball = _tar(work / "pack.tar.gz", members)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(PackRefusedError, match=needle):
        open_pack(str(tarball))
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_tarball_member_count_and_size_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tarball = _tar(tmp_path / "many.tar.gz", [(_member(f"environments/F{i}-v0/record.json"), b"0123456789") for i in range(20)])
    monkeypatch.setattr(pack_file_limits, "MAX_MEMBERS", 10)
    with pytest.raises(PackRefusedError, match="more than 10 members"):
        open_pack(str(tarball))
    monkeypatch.setattr(pack_file_limits, "MAX_MEMBERS", 1000)
    monkeypatch.setattr(pack_budget_limits, "MAX_PACK_BYTES", 100)
    with pytest.raises(PackRefusedError, match="at most 100 bytes"):
        open_pack(str(tarball))


def test_folder_pack_through_a_symlink_is_refused(tmp_path: Path, make_source) -> None:
    source = make_source(["PackLinked"])
    pack = export_pack(source, tmp_path / "pack", name="linked", find_parents=False).path
    module = pack / "environments" / "PackLinked-v0" / MODULE_FILE
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the pack", encoding="utf-8")
    module.unlink()
    module.symlink_to(secret)
    with pytest.raises(PackRefusedError, match="symbolic link"):
        open_pack(str(pack))


def _pip_install(wheel: Path, target: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile",
                    "--disable-pip-version-check", "--quiet", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=120)


def test_pip_installed_pack_is_data_imported_through_the_gate(tmp_path: Path, make_source) -> None:
    source = make_source(["PackInstalledA", "PackInstalledB"])
    result = export_pack(source, tmp_path / "dist", name="installed_demo", fmt="dist", find_parents=False)
    assert (result.path / "pyproject.toml").is_file() and result.wheel is not None
    assert 'installed_demo = "spade_pack_installed_demo"' in (result.path / "pyproject.toml").read_text()
    target = tmp_path / "site"
    _pip_install(result.wheel, target)
    (found,) = installed_packs([str(target)])
    assert found.name == "installed_demo" and found.problem is None and found.distribution == "spade-pack-installed-demo"
    store = fresh_store(tmp_path / "t.sqlite3")
    report = import_pack(open_pack("installed_demo", search_path=[str(target)]), store)
    assert report.count("accepted") == 2
    assert "spade_pack_installed_demo" not in sys.modules, "the pack's folder was imported as a module"
    assert all(r.trust is Trust.DESIGNER and r.provenance["source"] == "pack" for r in store.query(trust=Trust.DESIGNER))
    # `spade plugins` lists it as a pack, apart from code plugins, in a process that sees the install
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]), COLUMNS="200")
    listing = subprocess.run([sys.executable, "-m", "spade_core.cli.main", "plugins"], capture_output=True, text=True,
                             env=env, timeout=120)
    assert listing.returncode == 0, listing.stderr
    packs_part = listing.stdout.split("SPADE environment packs", 1)
    assert len(packs_part) == 2 and "installed_demo" in packs_part[1] and "usable" in packs_part[1]
    assert "installed_demo" not in packs_part[0]


def test_installed_distribution_carrying_python_is_refused(tmp_path: Path, make_source) -> None:
    source = make_source(["PackCarrier"])
    pack = export_pack(source, tmp_path / "pack", name="carrier", find_parents=False).path
    files = {str(p.relative_to(pack)): p.read_bytes() for p in pack.rglob("*") if p.is_file()}
    header = PackHeader("carrier", "", "now", "0", {})
    for extra, name in [("__init__.py", "carrier"), ("evil.pth", "carrier")]:
        target = tmp_path / f"site-{extra}"
        wheel = write_wheel(header, "1.0.0", files | {extra: b"import os\n"}, tmp_path / f"wheel-{extra}")
        _pip_install(wheel, target)
        (found,) = installed_packs([str(target)])
        assert found.problem is not None and "carries files outside its data" in found.problem
        with pytest.raises(PackError, match="is refused"):
            open_pack(name, search_path=[str(target)])
