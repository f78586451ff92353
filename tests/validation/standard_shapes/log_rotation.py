# shape: BFCL-style file system: logrotate-style rotation where mv never overwrites, so tool errors must be handled (oldest copy first)
"""File system: rotate a service log the way logrotate does, shifting numbered copies oldest first."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "RotateServiceLog",
    "domain": "tool_use",
    "description": "Rotate one service's log in /var/log with file-system tool calls: shift app.log.N to "
                   "app.log.N+1 (oldest first, because mv never overwrites), drop copies beyond the retention "
                   "count, move the live log to .1 and create a fresh empty log; scored by the final tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "existing": {"min": 1, "max": 8, "default": 4,
                     "description": "rotated copies already on disk (more shifts; from 5 some exceed the "
                                    "retention count and must be removed)"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "logrotate's numbered rotation scheme (rotate N): name.1 is the newest old copy, name.N the "
                 "oldest; copies beyond N are deleted; after rotation an empty live log is created.",
    "tags": ["filesystem", "multi-turn", "state-equality", "error-recovery"],
    "max_obs_chars": 16000,
}

SERVICES = ["nginx", "postgres", "billing", "mailer", "scheduler", "gateway", "indexer", "auth"]
LEVELS = ["INFO", "WARN", "ERROR", "DEBUG"]


class RotateServiceLog:
    def __init__(self, existing=4):
        self.existing = existing
        self.tree = {}
        self.episode = None

    def reset(self, rng, options):
        services = rng.sample(SERVICES, 3)
        target = services[0]
        keep = rng.randint(2, 6)
        count = self.existing
        folder = {}
        for other in services[1:]:
            folder[f"{other}.log"] = f"{rng.randint(1, 28):02d} INFO {other} running\n"
            for n in range(1, rng.randint(1, 3) + 1):
                folder[f"{other}.log.{n}"] = f"{other} old copy {n}, {rng.randint(100, 999)} lines\n"
        base = f"{target}.log"
        folder[base] = "".join(
            f"2025-05-{rng.randint(10, 28):02d} {rng.choice(LEVELS)} {target}: event {rng.randint(1000, 9999)}\n"
            for _ in range(3))
        for n in range(1, count + 1):
            folder[f"{base}.{n}"] = f"{target} rotated copy, {rng.randint(100, 999)} lines, id {rng.randint(10, 99)}\n"
        folder["README"] = "Logs of this host. Rotation policy: see /etc/logrotate.conf"
        self.tree = {"var": {"log": folder}, "etc": {"logrotate.conf": f"rotate {keep}\ncreate\n"}}
        path = "/var/log"
        reference = [{"name": "ls", "arguments": {"path": path}},
                     {"name": "cat", "arguments": {"file_name": "/etc/logrotate.conf"}}]
        for n in range(count, 0, -1):
            if n >= keep:
                reference.append({"name": "rm", "arguments": {"file_name": f"{path}/{base}.{n}"}})
            else:
                reference.append({"name": "mv", "arguments": {"source": f"{path}/{base}.{n}",
                                                              "destination": f"{path}/{base}.{n + 1}"}})
        reference.append({"name": "mv", "arguments": {"source": f"{path}/{base}", "destination": f"{path}/{base}.1"}})
        reference.append({"name": "touch", "arguments": {"file_name": f"{path}/{base}"}})
        task = (
            f"Rotate the log of the '{target}' service in /var/log once, the way logrotate does, using the "
            f"retention count N from the 'rotate N' line of /etc/logrotate.conf. After the rotation: "
            f"{base}.1 holds what {base} held, {base}.2 what {base}.1 held, and so on; copies that would get a "
            f"number above N are deleted, as is any existing copy already numbered above N; a new empty {base} "
            f"exists. Contents must move unchanged (no rewriting of files). Leave the other services' logs and "
            f"every other file untouched."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return FileSystem(self.tree, cwd="/var/log")

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset the environment to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "the episode is already over"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Read the retention count, then work from the highest-numbered "
                f"copy down: mv refuses to overwrite, so a copy's new name must be free before it moves.")

    def reference_action(self):
        return self.episode.reference_action()
