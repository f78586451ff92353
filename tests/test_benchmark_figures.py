"""Every benchmark that saves its figures saves the ones it printed, under the names the README's source comments use:
each benchmark's reporting function is given a recorded result (no model, pool or server is run) and every saved
figure must be said, as a number of its own, in what it printed."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))

from readme_figures import says  # noqa: E402
from saved_figures import Figure  # noqa: E402

from spade_core.selfplay.metrics import IterationMetrics, TimeSplit  # noqa: E402
from spade_core.smallworld.summary import estimate  # noqa: E402
from spade_core.training.weight_sync import compare_logprobs  # noqa: E402
from spade_core.validation.report import StageResult, ValidationReport, Verdict  # noqa: E402
from spade_registry.records import Status  # noqa: E402


def printed(capsys: pytest.CaptureFixture[str], figures: dict[str, Figure], names: set[str]) -> str:
    """What the benchmark printed, once every figure it saved is checked against it and ``names``."""
    out = capsys.readouterr().out
    assert set(figures) == names
    unsaid = [f"{key} = {figure.text}" for key, figure in figures.items() if not says(out, figure.text)]
    assert unsaid == [], f"saved but not printed: {unsaid}\n{out}"
    return out


def test_bench_generation_saves_its_printed_rates(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_generation import Timed, report, report_designer

    figures = report(Timed(512, 28.6, 512, 8.3, 8, 8)) | report_designer(Timed(512, 276.0, 512, 47.0, 4, 4))
    printed(capsys, figures, {"single_tok_per_s", "batched_tok_per_s", "speedup", "designer_plain_s",
                              "designer_fast_s", "designer_speedup"})
    assert figures["batched_tok_per_s"].text == "61.7 tok/s" and figures["speedup"].text == "3.45×"


def test_bench_ray_generation_saves_its_printed_rates(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_generation import Timed
    from bench_ray_generation import report

    figures = report(Timed(2048, 12.96, 2048, 8.94, 32, 32), actors=2, threads=1)
    printed(capsys, figures, {"driver_tok_per_s", "ray_tok_per_s", "speedup"})
    assert figures["speedup"].text == "1.45×"


def test_bench_sharding_memory_saves_its_printed_state(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_sharding_memory import report

    mib = 2**20
    rank = {"weights": 257 * mib, "grads": 257 * mib, "optimizer": 512 * mib, "max_rss": 3900 * mib}
    runs = {"replicate": [{k: 2 * v for k, v in rank.items()}] * 2, "fsdp": [rank, rank]}
    figures = report(runs, ranks=2)
    printed(capsys, figures, {"replicate_state_mib", "fsdp_state_mib", "state_ratio"})
    assert figures["fsdp_state_mib"].text == "1,026 MiB" and figures["state_ratio"].text == "0.500×"


def test_bench_rollout_saves_its_printed_episode_rates(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_rollout import figure_name, report_modes

    row = {"episodes_per_s": 210.4, "tokens_per_s": 3000.0, "generate_calls": 4, "wall_s": 0.15,
           "generate_share": 0.9, "failures": 0}
    figures = report_modes(figure_name("spade/ArithmeticChain-v3"), row, {**row, "episodes_per_s": 41.2})
    printed(capsys, figures, {"arithmetic_chain_batched_episodes_per_s", "arithmetic_chain_single_episodes_per_s",
                              "arithmetic_chain_speedup"})


def test_bench_rollout_multi_turn_saves_its_printed_rates(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_rollout import report_multi_turn

    kept = {"tokens_per_s": 22.2, "completion_tokens": 11520, "wall_s": 519.0, "prefilled_per_turn": 43.9,
            "new_per_turn": 43.9, "mean_turns": 30.0, "final_context": 2302}
    plain = {**kept, "tokens_per_s": 7.0, "prefilled_per_turn": 979.9}
    raw = {"tokens_per_s": 19.3, "completion_tokens": 11520, "wall_s": 597.0}
    figures = report_multi_turn(kept, raw, plain, same=True, evictions=0)
    printed(capsys, figures, {"kept_tok_per_s", "kept_prefilled_per_turn", "kept_new_per_turn", "raw_tok_per_s",
                              "full_tok_per_s", "full_prefilled_per_turn", "full_new_per_turn", "longest_context",
                              "kept_vs_full", "kept_vs_raw"})
    assert figures["kept_vs_full"].text == "3.17×"


def test_bench_packs_saves_its_printed_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_packs import Timings, show

    figures = show(Timings(1000, 20, 2, 0.005, 8.4, 0.47, 0.81, 6.1, 34.6, 34.0))
    printed(capsys, figures, {"copy_s", "export_folder_s", "export_tar_s", "export_parquet_s", "import_checks_s",
                              "import_full_s", "import_full_per_env_s", "import_gate_s", "import_gate_per_env_s"})
    assert figures["import_full_per_env_s"].text == "1.73 s"


def test_bench_small_world_saves_each_arms_printed_means(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_small_world import ARM_FIGURES, show_arms

    rows = [{"arm": arm, "seeds": 5, "held_out_end": estimate([end, end]), "held_out_mean": estimate([0.786]),
             "exploit_early": estimate([0.29]), "exploit_late": estimate([0.07, 0.07]),
             "episodes_per_iteration": estimate([564.0])} for arm, end in (("defended", 0.993),
                                                                            ("defended-cheap", 0.963))]
    figures = show_arms(rows)
    printed(capsys, figures, {f"{arm}_{column}" for arm in ("defended", "defended_cheap") for column in ARM_FIGURES})
    assert figures["defended_exploit_early"].text == "29 %" and figures["defended_held_out_end"].text == "0.993"


def test_bench_small_world_saves_each_arms_printed_area_per_token(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_small_world import show_tokens

    printed_as_table = {"seeds": 2, "budget": 7302.0, "reach_0.5": (estimate([900.0, 1100.0]), 2),
                        "reach_0.9": (estimate([]), 0), "tokens_per_iteration": estimate([520.0, 530.0]),
                        "exploit_late": estimate([0.2, 0.3])}
    rows = [{"arm": "uniform", "area": estimate([0.68, 0.70]), **printed_as_table},
            {"arm": "defended-cheap", "area": estimate([0.63, 0.64]), "vs_uniform": estimate([-0.05, -0.06]),
             "vs_fixed": estimate([0.01, 0.03]), **printed_as_table, "tokens_per_iteration": estimate([620.0, 640.0])}]
    figures = show_tokens(rows)
    printed(capsys, figures, {"token_budget", "uniform_area", "defended_cheap_area", "defended_cheap_minus_uniform",
                              "defended_cheap_minus_uniform_half_width", "defended_cheap_minus_fixed",
                              "defended_cheap_minus_fixed_half_width", "uniform_tokens_per_iteration",
                              "defended_cheap_tokens_per_iteration", "defended_cheap_tokens_vs_uniform"})
    assert figures["defended_cheap_minus_uniform"].text == "-0.055" and figures["uniform_area"].text == "0.690"
    assert figures["defended_cheap_tokens_per_iteration"].text == "630"
    assert figures["defended_cheap_tokens_vs_uniform"].text == "1.20x"  # the acceptance's cost criterion
    assert figures["defended_cheap_minus_fixed"].text == "0.020" and figures["token_budget"].value == 7302


def test_bench_serve_fairness_saves_its_printed_shares(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_serve_fairness import SETTINGS, Served, report

    rows = [("alone", Served(64, 64, 0, 0.004, 0.006, 0)), ("one client", Served(64, 33, 31, 0.2, 0.122, 90)),
            ("own clients", Served(64, 64, 0, 0.457, 0.972, 120))]
    figures = report(rows)
    printed(capsys, figures, {f"{setting}_{figure}" for setting in SETTINGS
                              for figure in ("in_time", "in_time_pct", "refused", "p50_ms", "p99_ms")})
    assert figures["one_client_in_time_pct"].text == "52%"


def test_bench_selfplay_saves_its_printed_memory_and_iterations(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_selfplay import Outcome, report

    figures = report(Outcome(3.37, 0.4, 2.02, {"designing": 2.9}, 3, 3, 1370.0, 2400.0, 25.0))
    printed(capsys, figures, {"peak_rss_gb", "state_gb", "iterations", "wall_min", "cpu_min"})
    assert figures["wall_min"].text == "22.8 min"


def test_bench_selfplay_saves_each_iterations_printed_time_split(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_selfplay import report_iterations

    splits = [(368.0, 269.0, 90.0), (338.0, 276.0, 61.0)]
    figures = report_iterations([IterationMetrics(n, time=TimeSplit(generate=g, train=t, other=total - g - t,
                                                                     total=total))
                                 for n, (total, g, t) in enumerate(splits, 1)])
    printed(capsys, figures, {f"iteration_{n}{part}" for n in (1, 2) for part in ("_s", "_generate_s", "_train_s")})
    assert figures["iteration_2_generate_s"].text == "276.0"


def test_bench_gpu_rollout_saves_its_printed_rates_and_push_checks(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_gpu_rollout import report_push, report_throughput

    full = compare_logprobs([[-1.0, -2.0]], [[-1.001, -2.0]], [[-1.2, -2.1]])
    stale = compare_logprobs([[-1.2, -2.1]], [[-1.0, -2.0]], [[-1.2, -2.1]])
    figures = report_throughput({"hf": (16384, 40.0), "vllm": (16384, 2.5)}) | report_push(full, stale)
    printed(capsys, figures, {"hf_tokens_per_s", "vllm_tokens_per_s", "speedup", "full_push_mean_abs_diff",
                              "update_shift", "partial_push_mean_abs_diff"})
    assert figures["speedup"].text == "16.0×"


def rejected_at(stage: str) -> ValidationReport:
    return ValidationReport("mutant.py", "0" * 64, [StageResult(stage, Verdict.FAILED, "observed")], Status.FAILED)


def test_bench_gate_mutants_saves_its_printed_kills(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_gate_mutants import report

    accepted = ValidationReport("good.py", "1" * 64)
    by_op = {"drop_condition": [rejected_at("reference"), rejected_at("baselines")],
             "reward_non_final": [rejected_at("reward_rule"), accepted]}
    figures = report(Counter(drop_condition=3, reward_non_final=4, unused_difficulty=2), by_op,
                     [accepted, accepted], ["drop_condition", "reward_non_final", "unused_difficulty"])
    out = printed(capsys, figures, {f"{figure}_{op}" for figure in ("made", "kept", "killed")
                                    for op in ("drop_condition", "reward_non_final", "unused_difficulty", "all")}
                  | {"kill_rate_drop_condition", "kill_rate_reward_non_final", "kill_rate_all", "false_rejects",
                     "originals"})
    assert figures["kill_rate_all"].text == "75%" and "unused_difficulty" in out


def test_bench_validation_saves_its_printed_throughput_shares_and_classes(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_validation import ClassRow, ClassTable, Run, show_classes, show_stages, show_throughput

    reports = [ValidationReport(f"candidate_{i}", "2" * 64) for i in range(11)] + [rejected_at("grounding")]
    figures = show_throughput(Run(5.32, 0.142, reports), Run(6.97, 0.086, reports), 1 / 17414, 2, workers=2)
    figures |= show_stages({"baselines": 2.3, "reference": 1.5, "swap": 0.005}, 12)
    table = ClassTable("gate", [ClassRow("hint_leak", 5, 5, 4, 2, 0), ClassRow("trivial", 4, 3, 3, 2, 1, ("t.py",))],
                       8, 9, 36, 37, ("spade/X-v0: rejected",))
    figures |= show_classes(table)
    printed(capsys, figures, {
        "candidates", "accepted", "candidates_per_s", "candidates_per_s_earlier", "cpu_s_per_candidate", "cpu_s_per_candidate_earlier",
        "cpu_bound_per_s", "cpu_bound_per_s_earlier", "bare_episodes_per_s", "share_baselines", "share_reference",
        "share_swap", "gate_hint_leak_recall", "gate_hint_leak_precision", "gate_trivial_recall",
        "gate_trivial_precision", "gate_flawed", "gate_rejected", "gate_recall", "gate_good_accepted", "gate_good",
        "seeds_accepted", "seeds"})
    assert figures["cpu_bound_per_s"].text == "14.1 /s" and figures["gate_trivial_precision"].text == "75%"
    assert figures["accepted"].text == "11" and figures["candidates"].text == "12"


def test_bench_sandbox_idle_saves_its_printed_shares(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_sandbox import report_idle

    figures = report_idle([0.0, 0.001, 0.002], [1.2, 1.9, 1.8])
    printed(capsys, figures, {f"idle_{part}{suffix}" for part in ("launcher", "workers", "total")
                              for suffix in ("", "_baseline")})
    assert figures["idle_total_baseline"].text == "4.90 % of a core"


def test_bench_sandbox_against_saves_its_printed_medians(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_sandbox import AGAINST, report_against

    figures = report_against("d446499", {key: (59.4, 55.5) for key in AGAINST})
    printed(capsys, figures, {f"{key}{suffix}" for key in AGAINST for suffix in ("", "_ref", "_ratio")})
    assert figures["step_p50_us_ratio"].text == "1.07×"


def test_bench_main_job_saves_its_printed_time_memory_and_iterations(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_main_job import MainJob, parse_time_report, report

    time_v = ("\tCommand being timed: \"bash scripts/main.sh\"\n"
              "\tElapsed (wall clock) time (h:mm:ss or m:ss): 21:52.34\n"
              "\tMaximum resident set size (kbytes): 3380672\n\tExit status: 0\n")
    splits = [(297.4, 187.0, 105.8), (268.0, 181.3, 85.7), (183.2, 124.9, 58.0)]
    metrics = [IterationMetrics(n, time=TimeSplit(generate=g, train=t, other=total - g - t, total=total))
               for n, (total, g, t) in enumerate(splits)]
    figures = report(MainJob(parse_time_report(time_v), metrics=metrics, asked=3))
    out = printed(capsys, figures, {"wall_min", "wall_s", "exit_status", "iterations", "asked", "peak_rss_gb",
                                    "peak_rss_gib", "peak_rss_kib", "outside_iterations_s"}
                  | {f"iteration_{n}{part}" for n in (0, 1, 2) for part in ("_s", "_generate_s", "_train_s")})
    assert figures["wall_s"].text == "1,312 s" and figures["wall_min"].text == "21.9 min"
    assert (figures["peak_rss_gb"].text, figures["peak_rss_gib"].text) == ("3.46 GB", "3.22 GiB") and figures["peak_rss_kib"].text == "3,380,672 KiB"
    assert figures["outside_iterations_s"].text == "564 s" and "3 of 3 LLM iterations" in out


def test_bench_main_job_reads_hours_and_refuses_what_is_not_a_time_report() -> None:
    from bench_main_job import parse_time_report

    report = parse_time_report("Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03\n"
                               "Maximum resident set size (kbytes): 12\nExit status: 137\n")
    assert (report.wall_s, report.peak_rss_kib, report.exit_status) == (3723.0, 12, 137)
    with pytest.raises(ValueError, match="not a GNU time -v report"):
        parse_time_report("real 0m1.0s\n")


def test_bench_standard_shapes_saves_its_printed_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_standard_shapes import FileVerdict, report

    verdicts = [FileVerdict("queue_class", "accepted", None, "accepted", 4.0),
                FileVerdict("lights_out", "accepted", None, "accepted", 6.5),
                FileVerdict("nim\x1b[2J", "rejected", "verifier", "a near miss was accepted\x1b[31m", 28.62)]
    figures = report(verdicts)
    out = printed(capsys, figures, {"accepted", "files", "median_s", "max_s", "total_s"})
    assert (figures["accepted"].text, figures["median_s"].text, figures["total_s"].text) == ("2", "6.5 s", "39 s")
    assert "\x1b[31m" not in out and "[verifier]" in out
