# shape: file-system triage: list the service logs, grep each for error lines, then copy the worst log into reports and write a one-line summary.
"""File system: find the service log with the most [ERROR] lines, copy it to /reports and write a summary line."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "WorstLogTriage",
    "domain": "tool_use",
    "description": "Several service logs sit in /var/log/services. Count the lines tagged [ERROR] in each (not the "
                   "archive, not WARN lines that merely mention errors), copy the worst log into /reports under a "
                   "fixed name and write a one-line summary file; scored by the final directory tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "services": {"min": 2, "max": 8, "default": 4,
                     "description": "service logs to read (from 4 an archive folder holds a noisier old log)"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Incident triage on log files, as in BFCL's file-system tasks: list a directory, grep each file "
                 "for a severity tag, compare counts, and file a copy of the worst offender with a short report.",
    "tags": ["filesystem", "logs", "grep", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

SERVICES = ["auth", "billing", "search", "gateway", "mailer", "scheduler", "thumbnails", "payments", "catalog",
            "reports"]
INFO = ["request served in {n} ms", "cache warm ({n} keys)", "health check ok", "worker {n} started",
        "config reloaded"]
WARN = ["slow query took {n} ms", "retrying after error on shard {n}", "error budget at {n}%",
        "queue depth {n}"]
ERROR = ["timeout talking to db after {n} ms", "unhandled exception in handler {n}", "connection refused on port {n}",
         "disk quota exceeded ({n}%)"]


def log_text(rng, errors):
    lines = [f"[ERROR] {rng.choice(ERROR).replace('{n}', str(rng.randint(2, 999)))}" for _ in range(errors)]
    lines += [f"[INFO] {rng.choice(INFO).replace('{n}', str(rng.randint(2, 999)))}" for _ in range(rng.randint(3, 8))]
    lines += [f"[WARN] {rng.choice(WARN).replace('{n}', str(rng.randint(2, 999)))}" for _ in range(rng.randint(1, 5))]
    rng.shuffle(lines)
    return "\n".join(f"2024-05-{rng.randint(10, 28)} {line}" for line in lines) + "\n"


class WorstLogTriage:
    def __init__(self, services=4):
        self.services = services
        self.tree = {}
        self.home = "/"
        self.episode = None

    def reset(self, rng, options):
        names = rng.sample(SERVICES, self.services)
        counts = rng.sample(range(1, 10), self.services)
        logs = {f"{name}.log": log_text(rng, count) for name, count in zip(names, counts)}
        worst = names[counts.index(max(counts))]
        if self.services >= 4:
            quiet = names[counts.index(min(counts))]
            logs["archive"] = {f"{quiet}.log.1": log_text(rng, max(counts) + 3)}
        reports = {"README.txt": "Triage reports go here.\n"}
        if rng.random() < 0.5:
            reports[f"worst_{rng.choice(names)}_old.log"] = "stale copy from last week\n"
        engineer = rng.choice(["dana", "omar", "lin", "petra", "kofi", "ines"])
        self.home = f"/home/{engineer}"
        self.tree = {"var": {"log": {"services": logs}}, "reports": reports,
                     "home": {engineer: {"notes.txt": "remember: [ERROR] lines only\n"}}}
        summary = f"{worst}: {max(counts)} errors"
        reference = [{"name": "ls", "arguments": {"path": "/var/log/services"}}]
        for name in names:
            reference.append({"name": "grep", "arguments": {"file_name": f"/var/log/services/{name}.log",
                                                            "pattern": "[ERROR]"}})
        reference.append({"name": "cp", "arguments": {"source": f"/var/log/services/{worst}.log",
                                                      "destination": f"/reports/worst_{worst}.log"}})
        reference.append({"name": "echo", "arguments": {"content": summary, "file_name": "/reports/summary.txt"}})
        task = (
            f"On-call triage by {engineer} for May 2024 ({self.services} service logs). Each service writes a log file directly in /var/log/services (ignore any sub-folder "
            "such as an archive). For each of these logs count the lines that contain the tag [ERROR] (a [WARN] "
            "line that mentions an error does not count). Exactly one log has the most [ERROR] lines. Copy that "
            "log (keep the original) to /reports/worst_<service>.log, where <service> is the log's name without "
            ".log, and create /reports/summary.txt whose entire content is '<service>: <count> errors' (for "
            "example 'webhooks: 4 errors', no trailing newline). Change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return FileSystem(self.tree, cwd=self.home)

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} grep matches a plain substring, so search for the bracketed tag "
                f"itself and count the matching lines per file; only then write into /reports.")

    def reference_action(self):
        return self.episode.reference_action()
