# shape: a BFCL-style multi-turn file-system task with many read-only calls before one write
"""Several project folders each hold a VERSION file; find the project with the highest version (reading the files
with ls, cat, find or grep, which change nothing) and write its name into a note. Scored by the final file tree:
only the one write changes it."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "ReleaseVersionNote",
    "domain": "tool_use",
    "description": "Read the VERSION files of several projects with file-system tools and write the name of the "
                   "project with the highest version into a note; scored by the final file tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 16,
    "players": 1,
    "difficulty": {"projects": {"min": 3, "max": 7, "default": 5, "description": "project folders to compare"}},
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Semantic versioning: versions compare by major, then minor, then patch number, as numbers (so "
                 "1.10.0 is later than 1.9.3).",
    "tags": ["filesystem", "multi-turn", "read-only", "semver"],
}

NAMES = ["atlas", "beacon", "cinder", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper"]


class ReleaseVersionNote:
    def __init__(self, projects=5):
        self.projects = projects
        self.tree = {}
        self.episode = None

    def reset(self, rng, options):
        names = rng.sample(NAMES, self.projects)
        versions = {}
        while len(set(versions.values())) != self.projects:
            major = rng.randint(1, 3)
            versions = {n: (major + rng.randint(0, 1), rng.randint(0, 12), rng.randint(0, 9)) for n in names}
        best = max(names, key=lambda n: versions[n])
        projects = {n: {"VERSION": ".".join(map(str, versions[n])), "README.md": f"The {n} service."}
                    for n in names}
        self.tree = {"home": {"dev": {"projects": projects, "notes": {}}}}
        reference = [{"name": "ls", "arguments": {"path": "/home/dev/projects"}}]
        for n in sorted(names):
            reference.append({"name": "cat", "arguments": {"file_name": f"/home/dev/projects/{n}/VERSION"}})
        reference.append({"name": "echo", "arguments": {"content": best,
                                                        "file_name": "/home/dev/notes/latest.txt"}})
        task = ("Your working directory is /home/dev. Each folder of /home/dev/projects is a project with a VERSION "
                "file (major.minor.patch). Find the project with the highest version (compare major, then minor, "
                "then patch, as numbers) and write just its folder name into /home/dev/notes/latest.txt. Change "
                "nothing else.")
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return FileSystem(self.tree, cwd="/home/dev")

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Read every VERSION file before writing; compare the parts as "
                "numbers, not as text.")

    def reference_action(self):
        return self.episode.reference_action()
