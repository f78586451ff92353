"""The gate's mutation score: its kill rate per mutation operator next to its false-reject rate on the originals.

Every bundled seed (``plugins/domains/*/seeds``) and every good corpus environment (``tests/validation``: the good
twins of the gate and invariants corpora, the standard-shapes corpus, the good fixture) is mutated with operators modelled on designer mistakes
(``spade_core.mutation.operators``). A mutant is kept only when the differential oracle
(``spade_core.mutation.oracle``) shows it is observably worse than its original on the same seeds with the same
policies. Then the gate (``validate_source``, every stage, a fresh empty store per file, as ``spade validate FILE``
with no document and no probe) runs on each original and each kept mutant. Novelty is left out: a mutant is a
near copy of its original by construction, and the bundled seeds are in every store the CLI opens.

    python benchmarks/bench_gate_mutants.py [--limit 12] [--files a,b] [--operators a,b] [--sites 1] [--tries 3] [--workers 2]
        [--survivors] [--save [VARIANT]]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from saved_figures import Figure, add_save_option, keep, save_run

ROOT = Path(__file__).resolve().parents[1]
SCRATCH = Path(tempfile.mkdtemp(prefix="spade-mutants-"))
os.environ.setdefault("SPADE_STORE", str(SCRATCH / "registry.sqlite3"))

from spade_core.mutation.operators import OPERATORS, Mutant, each_mutant  # noqa: E402
from spade_core.mutation.oracle import ORACLE_SEEDS, behaviour, judge  # noqa: E402
from spade_core.validation import ValidationConfig, validate_source  # noqa: E402
from spade_core.validation.mutations import evenly  # noqa: E402
from spade_core.validation.pipeline import sandbox_handles  # noqa: E402
from spade_core.validation.report import ValidationReport  # noqa: E402
from spade_registry.store import RegistryStore  # noqa: E402

GOOD = [ROOT / "tests" / "validation" / "gate" / "good", ROOT / "tests" / "validation" / "invariants_corpus" / "good",
        ROOT / "tests" / "validation" / "standard_shapes"]
FIXTURES = [ROOT / "tests" / "validation" / "corpus" / "good_secret_number.py"]


def originals() -> list[Path]:
    seeds = sorted(p for p in (ROOT / "plugins" / "domains").glob("*/seeds/*.py") if p.name != "__init__.py")
    return seeds + sorted(p for folder in GOOD for p in folder.glob("*.py")) + FIXTURES


def spread(items: list[Path], limit: int | None) -> list[Path]:
    """``limit`` items evenly spaced over the list (every domain and corpus gets its share)."""
    return items if limit is None else evenly(items, limit)


@dataclass
class Kept:
    file: Path
    mutant: Mutant
    reasons: tuple[str, ...]


@dataclass
class FileResult:
    file: Path
    made: Counter
    kept: list[Kept]


def mutate_and_judge(file: Path, operators: list[str], sites: int, tries: int, seeds: tuple[int, ...]) -> FileResult:
    """Per operator, mutants of ``file`` at its sites in sampled order until ``sites`` are kept or ``tries`` were
    judged (a site whose rewrite no policy can tell apart, such as a guard on a branch never reached, does not use
    up the operator's share)."""
    source = file.read_text()
    original = behaviour(source, sandbox_handles, seeds=seeds)
    made: Counter = Counter()
    kept: list[Kept] = []
    for operator in operators:
        worse = 0
        for mutant in each_mutant(source, operator, label=file.name):
            if worse >= sites or made[operator] >= tries:
                break
            made[operator] += 1
            verdict = judge(original, behaviour(mutant.source, sandbox_handles, seeds=seeds))
            if verdict.worse:
                worse += 1
                kept.append(Kept(file, mutant, verdict.reasons))
    print(f"  oracle: {file.name}: {sum(made.values())} mutants, {len(kept)} worse", file=sys.stderr, flush=True)
    return FileResult(file, made, kept)


def gate(source: str, file: str, index: int) -> ValidationReport:
    """The gate as ``spade validate FILE`` runs it, with a fresh store for this file."""
    store = RegistryStore(SCRATCH / f"store-{index}.sqlite3")
    report = validate_source(source, file=file, config=ValidationConfig(), store=store)
    print(f"  gate: {file}: {report.status}", file=sys.stderr, flush=True)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="originals to mutate (evenly spaced); default all")
    parser.add_argument("--files", default="", help="comma-separated original file names (stems) to mutate, of the "
                        "originals --limit selects; default every one")
    parser.add_argument("--operators", default=",".join(OPERATORS), help="comma-separated operator names")
    parser.add_argument("--sites", type=int, default=1, help="kept mutants per operator and original (sampled sites)")
    parser.add_argument("--tries", type=int, default=3, help="mutants judged at most per operator and original, "
                        "until --sites are kept")
    parser.add_argument("--workers", type=int, default=2, help="originals (then gate runs) at once")
    parser.add_argument("--seeds", type=int, default=len(ORACLE_SEEDS), help="seeds the oracle plays")
    parser.add_argument("--survivors", action="store_true", help="list every kept mutant the gate accepted")
    add_save_option(parser)
    args = parser.parse_args()
    operators = [o.strip() for o in args.operators.split(",") if o.strip()]
    unknown = sorted(set(operators) - set(OPERATORS))
    if unknown:
        parser.error(f"unknown operators {unknown}; known: {', '.join(OPERATORS)}")
    files = spread(originals(), args.limit)
    if args.files:
        wanted = {name.strip().removesuffix(".py") for name in args.files.split(",") if name.strip()}
        missing = sorted(wanted - {f.stem for f in files})
        if missing:
            parser.error(f"--files: no original named {missing} among the {len(files)} selected")
        files = [f for f in files if f.stem in wanted]
    seeds = tuple(range(args.seeds))
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        results = list(pool.map(lambda f: mutate_and_judge(f, operators, args.sites, max(args.tries, args.sites), seeds), files))
    oracle_s = time.perf_counter() - started
    kept = [k for r in results for k in r.kept]
    jobs = [(f.read_text(), str(f.relative_to(ROOT))) for f in files] + [
        (k.mutant.source, f"{k.file.relative_to(ROOT)} [{k.mutant.operator}: {k.mutant.what}]") for k in kept]
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        reports = list(pool.map(lambda j: gate(j[0], j[1], j[2]), [(*job, i) for i, job in enumerate(jobs)]))
    gate_s = time.perf_counter() - started - oracle_s
    made: Counter = Counter()
    for r in results:
        made.update(r.made)
    by_op: dict[str, list[ValidationReport]] = defaultdict(list)
    for k, rep in zip(kept, reports[len(files):], strict=True):
        by_op[k.mutant.operator].append(rep)
    figures = report(made, by_op, reports[:len(files)], operators)
    print(f"\n{len(files)} originals, {sum(sum(r.made.values()) for r in results)} mutants, oracle {oracle_s:.0f} s, "
          f"gate {gate_s:.0f} s ({args.workers} workers, {len(seeds)} oracle seeds)")
    if args.survivors:
        for k, rep in zip(kept, reports[len(files):], strict=True):
            if rep.accepted:
                print(f"  survived: {rep.file} (oracle: {'; '.join(k.reasons)})")
    if args.save:
        save_run("bench_gate_mutants", args.save, figures)


def report(made: Counter, by_op: dict[str, list[ValidationReport]], originals: list[ValidationReport],
           operators: list[str]) -> dict[str, Figure]:
    """Print per operator the mutants made, kept (worse on the oracle) and killed by the gate, then the originals
    falsely rejected; the figures as printed (``killed_<op>`` and ``kept_<op>``, ``all`` for the total)."""
    figures: dict[str, Figure] = {}
    print(f"{'operator':<22}{'mutants':>8}{'worse':>7}{'killed':>8}{'kill rate':>11}  killed at")
    every = [r for op in operators for r in by_op.get(op, [])]
    for op, reps in [*((op, by_op.get(op, [])) for op in operators), ("all", every)]:
        killed = [r for r in reps if not r.accepted]
        rate = keep(figures, f"kill_rate_{op}", 100 * len(killed) / len(reps), 0, "%") if reps else "-"
        stages = Counter(r.failed_stage for r in killed).most_common(3)
        count = sum(made.values()) if op == "all" else made[op]
        print(f"{op:<22}{keep(figures, f'made_{op}', count, 0):>8}{keep(figures, f'kept_{op}', len(reps), 0):>7}"
              f"{keep(figures, f'killed_{op}', len(killed), 0):>8}{rate:>11}  "
              + ", ".join(f"{s} {n}" for s, n in stages))
    rejected = [r for r in originals if not r.accepted]
    print(f"\noriginals falsely rejected: {keep(figures, 'false_rejects', len(rejected), 0)} / "
          f"{keep(figures, 'originals', len(originals), 0)}")
    for r in rejected:
        observed = next((s.observed for s in r.stages if s.stage == r.failed_stage), "")
        print(f"  {r.file}: {r.failed_stage}: {observed[:160]}")
    return figures

if __name__ == "__main__":
    main()
