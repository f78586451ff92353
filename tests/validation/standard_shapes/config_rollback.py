# shape: BFCL-style several reads before one write (incident note, deploy log, release file, then restore the config)
"""File system: roll a service's live config back to the release of the last healthy deploy before an incident."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "RollbackToLastGoodRelease",
    "domain": "tool_use",
    "description": "Read an incident note, a deploy log and release files, then restore the live config of a "
                   "service to the release used by the last successful deploy before the faulty one; several "
                   "reads before a single write, scored by the final directory tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 16,
    "players": 1,
    "difficulty": {
        "deploys": {"min": 4, "max": 14, "default": 8,
                    "description": "deploy log length; from 7 failed and rolled-back deploys sit between the "
                                   "faulty one and the last good one, from 10 a second (resolved) incident"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Release engineering practice: a deploy log records which release each deploy shipped and "
                 "whether it succeeded; rolling back means restoring the config of the last known-good deploy.",
    "tags": ["filesystem", "multi-turn", "state-equality", "multi-read"],
    "max_obs_chars": 16000,
}

SERVICES = ["checkout", "search", "payments", "catalog", "notify", "profile"]
KEYS = ["workers", "timeout_s", "pool_size", "retries", "cache_ttl", "batch"]
FLAGS = ["new_pricing", "fast_path", "async_mail", "v2_api", "compression"]
PEOPLE = ["alex", "sam", "maria", "kenji", "olu", "noor"]


class RollbackToLastGoodRelease:
    def __init__(self, deploys=8):
        self.deploys = deploys
        self.tree = {}
        self.base = "/srv/checkout"
        self.episode = None

    def reset(self, rng, options):
        # the faulty deploy is the last one below 10 deploys; from 10, up to two later deploys follow it
        service = rng.choice(SERVICES)
        self.base = f"/srv/{service}"
        n = self.deploys
        release_ids = rng.sample(range(10, 60), n + 1)
        release_ids.sort()
        releases = {}
        for rid in release_ids:
            lines = [f"{key}={rng.randint(2, 64)}" for key in KEYS]
            lines.append(f"{rng.choice(FLAGS)}={rng.choice(['on', 'off'])}")
            releases[f"r{rid}.conf"] = "\n".join(lines) + "\n"
        first_id = rng.randint(200, 700)
        bad_index = n - 1 - (rng.randint(0, 2) if n >= 10 else 0)
        statuses = ["ok"] * n
        if n >= 7:
            for j in range(bad_index - 1, max(0, bad_index - 1 - rng.randint(1, 3)), -1):
                statuses[j] = rng.choice(["failed", "rolled_back"])
        good_index = max(j for j in range(bad_index) if statuses[j] == "ok")
        log_lines = []
        shipped = []
        for j in range(n):
            rel = release_ids[j + 1] if j > 0 else release_ids[0]
            shipped.append(rel)
            log_lines.append(f"2025-04-{j + 2:02d} 1{rng.randint(0, 8)}:{rng.randint(0, 59):02d} deploy "
                             f"#{first_id + j} release=r{rel} by={rng.choice(PEOPLE)} status={statuses[j]}")
        bad_deploy = first_id + bad_index
        good_release = f"r{shipped[good_index]}.conf"
        incidents = []
        if n >= 10:
            incidents.append(f"INC-{rng.randint(100, 499)} [resolved] deploy #{first_id + 1} raised p99 latency; "
                             f"fixed forward.")
        inc = f"INC-{rng.randint(500, 999)}"
        incidents.append(f"{inc} [open] 5xx spike right after deploy #{bad_deploy}. Action: roll back the live "
                         f"config to the last successful deploy before #{bad_deploy}.")
        live = releases[f"r{shipped[n - 1]}.conf"]
        self.tree = {"srv": {service: {
            "current.conf": live,
            "deploys.log": "\n".join(log_lines) + "\n",
            "incidents.txt": "\n".join(incidents) + "\n",
            "releases": releases,
        }}}
        b = self.base
        reference = [
            {"name": "cat", "arguments": {"file_name": f"{b}/incidents.txt"}},
            {"name": "cat", "arguments": {"file_name": f"{b}/deploys.log"}},
            {"name": "cat", "arguments": {"file_name": f"{b}/releases/{good_release}"}},
            {"name": "echo", "arguments": {"content": releases[good_release], "file_name": f"{b}/current.conf"}},
        ]
        task = (
            f"The open incident in {b}/incidents.txt was caused by a deploy of the '{service}' service. Restore "
            f"{b}/current.conf to exactly the content of the release file (in {b}/releases/) shipped by the most "
            f"recent deploy before the faulty one whose status is ok (deploys marked failed or rolled_back do not "
            f"count). The log {b}/deploys.log lists the deploys in order. Replace the content of current.conf "
            f"only: keep the file name, do not edit or remove any other file."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return FileSystem(self.tree, cwd=self.base)

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset the environment to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "the episode is already over"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Take the faulty deploy number from the open incident, walk the "
                f"deploy log backwards from it skipping non-ok deploys, then copy that release's text verbatim.")

    def reference_action(self):
        return self.episode.reference_action()
