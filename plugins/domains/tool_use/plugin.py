"""The tool-use domain plugin: designer guidance, episode helpers, topic weights and seed environments."""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import DomainSpec, SeedEnvironment
from spade_tools.plugin import SANDBOX_MODULES

SEEDS = (
    "organize_downloads",
    "triage_inbox",
    "ledger_reconcile",
    "pay_invoices",
    "schedule_meetings",
    "resolve_conflicts",
    "inventory_recount",
    "course_enrollment",
    "expense_receipts",
    "room_bookings",
)
SEED_PACKAGE = "spade_domains.tool_use.seeds"

GUIDANCE = """\
WHAT TO BUILD: a task the agent solves with several structured tool calls against stateful tools, scored by
comparing the final tool state with the state a reference run produces.
- Tools: build the initial state from plain data with the tool classes of the API REFERENCE (FileSystem, Ledger,
  Calendar, SqlDatabase, Calculator) and combine several with Toolbox(tool_a, tool_b). Snapshots ignore what should
  not be judged (working directory, event ids, row order, ledger posting order).
- The episode: in reset, generate the scenario from rng, write the reference call list (your scripted solver; you
  may run a scratch tool object to compute it, e.g. find_free_slot on a copy), then
    self.episode = ToolEpisode(self._toolbox, reference_calls, task_text, max_turns=ENV_SPEC["max_turns"])
    return self.episode.first_observation(), self.episode.reset_info()
  where self._toolbox() builds a FRESH toolbox from the stored scenario data each time. step, reference_action and
  privileged_hint delegate to self.episode (step / reference_action / milestone_hint). ToolEpisode replays the
  reference on a fresh toolbox, refuses a reference whose call fails or changes nothing, parses actions ({"name",
  "arguments"} calls, JSON lists, ```json fences, <tool_call> tags, "finish", or a plain-text final answer), gives
  malformed calls a format_error, and scores final-state equality (reward 1.0 on success, else 0.0).
- ENV_SPEC: domain "tool_use", reward_range [0.0, 1.0], max_turns above the longest reference plus slack,
  max_obs_chars 16000 (the first observation lists the tool schemas), tools = the tool names exposed, a difficulty
  knob that changes the number of calls or the traps.
The task text pins down ONE correct final state: exactly which names, memos, titles, amounts and formats to use,
what must stay untouched ("change nothing else"), and an ordering rule wherever order matters (earliest free slot).
The agent must need the tools to find facts the text withholds (file contents, ledger history, rows, free times),
so the text never holds every argument and one call never solves it. HINT: the milestone list (which tools in
which order, no arguments) plus a rule of thumb; never target values, file names, ids or amounts.
"""


ACTIONS_MODULE = "spade_domains.tool_use.actions"
EPISODE_MODULE = "spade_domains.tool_use.episode"
TOPICS = {  # the wiki corpus's topics: errands and records from everyday life and institutions
    "Everyday life": 4.0, "Society and social sciences": 3.0, "Technology": 2.0, "Geography": 1.5, "*": 0.5,
}


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name="tool_use",
            description="Multi-turn tasks solved with structured calls to stateful tools (file system, ledger, "
                        "calendar, SQL table, calculator), scored by final-state equality with a reference run.",
            designer_guidance=GUIDANCE,
            worked_examples=(f"{SEED_PACKAGE}.organize_downloads", f"{SEED_PACKAGE}.pay_invoices"),
            # the bundled tool classes (spade_tools) first, then the episode helpers
            sandbox_modules=(*SANDBOX_MODULES, ACTIONS_MODULE, EPISODE_MODULE),
            answer_kind="text",
            topics=TOPICS,
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment(f"{SEED_PACKAGE}.{name}") for name in SEEDS]


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    return {
        ACTIONS_MODULE: {name: f"{ACTIONS_MODULE}:{name}" for name in ("parse_tool_calls", "render_tools", "milestones")},
        EPISODE_MODULE: {"ToolEpisode": f"{EPISODE_MODULE}:ToolEpisode"},
    }
