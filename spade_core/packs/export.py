"""``spade export``: choose records of a store and write them as a pack (folder, tarball, parquet, distribution)."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spade_core import __version__, linear_re
from spade_core.memory import EnvironmentMemory, HashingEmbedder
from spade_core.packs.card import pack_card
from spade_core.packs.distribution import data_folder, pyproject, write_wheel
from spade_core.packs.errors import PackError
from spade_core.packs.parquet import write_parquet
from spade_core.packs.schema import (
    CARD_FILE,
    INDEX_FILE,
    MODULE_FILE,
    PACK_NAME_PATTERN,
    PARQUET_FILE,
    RECORD_FILE,
    IndexEntry,
    Lineage,
    PackEnvironment,
    PackHeader,
    PackStats,
    env_folder,
    environment_from_record,
)
from spade_registry.errors import InvalidIdError, SpadeError
from spade_registry.ids import ENV_NAMESPACE, format_env_id
from spade_registry.records import Record, Status, Trust
from spade_registry.store import RegistryStore

FORMATS = ("folder", "tar", "parquet", "dist")
"""``folder``: the pack tree; ``tar``: that tree as ``.tar.gz``; ``parquet``: a dataset folder (card + parquet);
``dist``: an installable distribution (``pyproject.toml``, the tree as package data, and a built wheel)."""
VERSION_PATTERN = linear_re.compile(r"^\d{1,6}(\.\d{1,6}){0,3}$")


@dataclass(frozen=True)
class RunHistory:
    """What a self-play run directory says about its environments (built by :mod:`spade_core.selfplay.lineage`)."""

    run: str
    accepted_in: Mapping[str, int]
    """env id -> the iteration whose designer phase accepted it."""
    regret: Mapping[str, Sequence[dict[str, Any]]]
    """env id -> ``{"iteration", "regret", "p_hint", "p_nohint"}`` for every iteration that played it."""


@dataclass(frozen=True)
class ExportFilter:
    """Which records go into a pack: every given filter must hold. Bundled environments are never exported."""

    statuses: tuple[str, ...] = (Status.ACCEPTED.value,)
    domains: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    iterations: tuple[int, int] | None = None
    """With a run: only environments that run accepted in these iterations (inclusive)."""
    min_regret: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"statuses": list(self.statuses), "domains": list(self.domains), "tags": list(self.tags),
                "iterations": list(self.iterations) if self.iterations else None, "min_regret": self.min_regret}


@dataclass
class ExportResult:
    path: Path
    environments: list[PackEnvironment]
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0
    wheel: Path | None = None


def _stats(record: Record, history: Sequence[dict[str, Any]]) -> PackStats:
    s = record.stats

    def num(key: str) -> float | None:
        value = s.get(key)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def count(key: str) -> int:
        value = s.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

    plays = count("episodes")
    return PackStats(plays=plays, successes=min(count("successes"), plays), p_hint=num("p_hint"),
                     p_nohint=num("p_nohint"), regret=num("regret"), regret_history=tuple(dict(h) for h in history))


def _regret(stats: PackStats) -> float | None:
    if stats.regret is not None:
        return stats.regret
    known = [h["regret"] for h in stats.regret_history if h.get("regret") is not None]
    return known[-1] if known else None


def select_records(store: RegistryStore, filters: ExportFilter, run: RunHistory | None = None) -> list[Record]:
    """Designer records matching ``filters`` (and accepted by ``run`` in the chosen iterations), oldest first."""
    out = []
    for status in filters.statuses:
        for record in store.query(status=Status.parse(status), trust=Trust.DESIGNER):
            if filters.domains and record.domain not in filters.domains:
                continue
            if filters.tags and not set(filters.tags) & set(record.tags):
                continue
            if run is not None:
                iteration = run.accepted_in.get(record.env_id or "")
                if iteration is None:
                    continue
                if filters.iterations and not filters.iterations[0] <= iteration <= filters.iterations[1]:
                    continue
            out.append(record)
    return sorted(out, key=lambda r: r.rid)


class ParentFinder:
    """The parent of a record in the environment memory: the closest accepted environment stored before it."""

    def __init__(self, store: RegistryStore) -> None:
        self.memory = EnvironmentMemory(store, embedder=HashingEmbedder())
        self.method = f"memory:{self.memory.model_key}"

    def parent(self, record: Record) -> tuple[str | None, float | None]:
        for hit in self.memory.neighbours(record, k=8, domain=record.domain):
            if hit.rid < record.rid:
                parent = self.memory.store.get(hit.rid)
                return parent.env_id, round(float(hit.similarity), 4)
        return None, None


def pack_environment(record: Record, pack_id: str, *, run: RunHistory | None, parents: ParentFinder | None) -> PackEnvironment:
    prov = record.provenance
    history = run.regret.get(record.env_id or "", ()) if run is not None else ()
    parent, similarity, method = prov.get("parent"), None, "provenance" if prov.get("parent") else None
    if not isinstance(parent, str) or not parent:
        parent, method = None, None
        if parents is not None:
            parent, similarity = parents.parent(record)
            method = parents.method if parent else None
    title = prov.get("doc_title")
    doc_id = prov.get("doc_id")
    lineage = Lineage(source=str(prov.get("source")) if prov.get("source") is not None else None,
                      run=run.run if run is not None and record.env_id in run.accepted_in else None,
                      iteration=run.accepted_in.get(record.env_id or "") if run is not None else None,
                      document_title=title if isinstance(title, str) else None,
                      doc_id=doc_id if isinstance(doc_id, str) else None, parent=parent,
                      parent_similarity=similarity, parent_by=method)
    name, _, version = pack_id.rpartition("/")[2].rpartition("-v")
    return PackEnvironment(pack_id=pack_id, name=name, version=int(version), domain=record.domain,
                           status=record.status.value, tags=record.tags, content_hash=record.content_hash,
                           code=record.code, manifest=record.manifest, report=record.report,
                           stats=_stats(record, history), lineage=lineage, provenance=dict(prov))


def readable_environment(env: PackEnvironment) -> PackEnvironment:
    """``env`` when the pack reader reads its record back as the same environment; else :class:`PackFormatError`,
    so an export never writes a record that would make the pack's reader refuse it."""
    data = json.loads(_json(env.record_data()))
    entry = IndexEntry(env.pack_id, env.domain, env.status, env.content_hash, env_folder(env.pack_id))
    environment_from_record(data, env.code, f"{entry.path}/{RECORD_FILE}", entry)
    return env


def _pack_ids(records: Sequence[Record]) -> tuple[list[tuple[Record, str]], list[str]]:
    """Each record's id in the pack (always ``spade/<Name>-v<N>``): its store id in the ``spade`` namespace; an
    imported record (``spade-pack``) or an unversioned one gets its own version, or the next free one, of its name."""
    used = {r.env_id for r in records if r.env_id and r.namespace == ENV_NAMESPACE}
    out, skipped = [], []
    for record in records:
        if record.env_id and record.namespace == ENV_NAMESPACE:
            out.append((record, record.env_id))
            continue
        try:
            version = record.version or 0
            while format_env_id(record.name, version) in used:
                version += 1
            pack_id = format_env_id(record.name, version)
        except InvalidIdError as exc:
            skipped.append(f"#{record.rid}: {exc}")
            continue
        used.add(pack_id)
        out.append((record, pack_id))
    return out, skipped


def pack_files(header: PackHeader, environments: Sequence[PackEnvironment], *, dataset_card: bool = False) -> dict[str, bytes]:
    """Every file of the pack tree, by relative path."""
    files: dict[str, bytes] = {}
    index = header.to_dict() | {"environments": [
        IndexEntry(e.pack_id, e.domain, e.status, e.content_hash, env_folder(e.pack_id)).to_dict() for e in environments]}
    files[INDEX_FILE] = _json(index)
    files[CARD_FILE] = pack_card(header, environments, dataset=dataset_card).encode("utf-8")
    for env in environments:
        folder = env_folder(env.pack_id)
        files[f"{folder}/{MODULE_FILE}"] = env.code.encode("utf-8", "surrogatepass")
        files[f"{folder}/{RECORD_FILE}"] = _json(env.record_data())
    return files


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=1, sort_keys=True, allow_nan=False) + "\n").encode("utf-8")


def _write_tree(files: Mapping[str, bytes], root: Path) -> None:
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _write_tar(files: Mapping[str, bytes], path: Path) -> None:
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for rel, data in sorted(files.items()):
            info = tarfile.TarInfo(rel)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            archive.addfile(info, io.BytesIO(data))


def default_format(out: Path) -> str:
    if out.name.endswith((".tar.gz", ".tgz")):
        return "tar"
    if out.name.endswith(".parquet"):
        return "parquet"
    return "folder"


def export_pack(store: RegistryStore, out: Path, *, name: str, fmt: str | None = None, description: str = "",
                filters: ExportFilter = ExportFilter(), run: RunHistory | None = None, version: str = "1.0.0",
                made_by: Mapping[str, Any] | None = None, find_parents: bool = True,
                progress: Callable[[int, int], None] | None = None, overwrite: bool = False) -> ExportResult:
    """Write the records ``filters`` selects as a pack at ``out`` in format ``fmt`` (default: from ``out``'s name)."""
    started = time.perf_counter()
    fmt = fmt or default_format(out)
    if fmt not in FORMATS:
        raise PackError(f"unknown pack format {fmt!r}; use one of: {', '.join(FORMATS)}")
    if not PACK_NAME_PATTERN.fullmatch(name):
        raise PackError(f"pack name {name!r} must be lowercase letters, digits or '_' (max 64), starting with a letter")
    if not VERSION_PATTERN.fullmatch(version):
        raise PackError(f"pack version {version!r} must look like 1.0.0")
    if out.exists() and not overwrite:
        raise PackError(f"{out} already exists; choose another path or pass --overwrite")
    records, skipped = _pack_ids(select_records(store, filters, run))
    parents = ParentFinder(store) if find_parents and records else None
    environments = []
    for i, (record, pack_id) in enumerate(records):
        try:
            env = readable_environment(pack_environment(record, pack_id, run=run, parents=parents))
        except (SpadeError, ValueError) as exc:  # one record the pack format cannot hold is reported; the rest go on
            skipped.append(f"#{record.rid}: {exc}")
            continue
        if filters.min_regret is not None and ((r := _regret(env.stats)) is None or r < filters.min_regret):
            continue
        environments.append(env)
        if progress is not None:
            progress(i + 1, len(records))
    if not environments:
        raise PackError(f"no designer environment of {store.path} matches the filters {filters.to_dict()}"
                        + (f" and run {run.run}" if run else "") + "; nothing to export (see `spade list --status all`)")
    header = PackHeader(name=name, description=description, created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                        spade_version=__version__, made_by={"filters": filters.to_dict(), "format": fmt,
                                                            "run": run.run if run else None, **dict(made_by or {})})
    if overwrite and out.exists():
        shutil.rmtree(out) if out.is_dir() and not out.is_symlink() else out.unlink()
    result = ExportResult(out, environments, skipped)
    if fmt == "tar":
        _write_tar(pack_files(header, environments), out)
    elif fmt == "parquet":
        folder = out.with_suffix("") if out.suffix == ".parquet" else out
        _write_tree({CARD_FILE: pack_card(header, environments, dataset=True).encode("utf-8")}, folder)
        write_parquet(header, environments, folder / PARQUET_FILE)
        result.path = folder
    elif fmt == "dist":
        files = pack_files(header, environments)
        with tempfile.TemporaryDirectory() as tmp:
            staging = Path(tmp) / "dist"
            _write_tree({"pyproject.toml": pyproject(header, version).encode(), CARD_FILE: files[CARD_FILE]}
                        | {f"{data_folder(name)}/{rel}": data for rel, data in files.items()}, staging)
            result.wheel = write_wheel(header, version, files, staging / "dist")
            shutil.move(staging, out)
        result.wheel = out / "dist" / result.wheel.name
    else:
        _write_tree(pack_files(header, environments), out)
    result.seconds = time.perf_counter() - started
    return result
