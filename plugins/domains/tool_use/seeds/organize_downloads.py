"""File system: sort a downloads folder into one sub-folder per file extension."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "OrganizeDownloads",
    "domain": "tool_use",
    "description": "Sort every file of a downloads folder into a sub-folder named after its extension, using "
                   "file-system tool calls (ls, mkdir, mv, ...); scored by the final directory tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "files": {"min": 3, "max": 14, "default": 6,
                  "description": "files to sort; from 6 an upper-case extension, from 8 a folder that already "
                                 "exists, from 10 a hidden file to leave alone, from 12 a file without extension"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Everyday file management with POSIX-style commands, as in BFCL's GorillaFileSystem: relative "
                 "and absolute paths, mv into an existing directory, hidden dot-files.",
    "tags": ["filesystem", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

STEMS = [
    "report", "holiday", "invoice", "notes", "budget", "photo", "resume", "song", "scan", "draft", "slides",
    "recipe", "map", "contract", "backup", "minutes", "poster", "ticket", "lecture", "podcast", "manual", "letter",
]
EXTENSIONS = ["pdf", "txt", "csv", "jpg", "png", "mp3", "docx", "zip", "xlsx"]
USERS = ["alex", "sam", "maria", "kenji", "olu", "noor", "ilse", "tariq"]


class OrganizeDownloads:
    def __init__(self, files=6):
        self.files = files
        self.tree = {}
        self.home = "/home/alex"
        self.episode = None

    def reset(self, rng, options):
        count = self.files
        user = rng.choice(USERS)
        self.home = f"/home/{user}"
        downloads_path = f"{self.home}/downloads"
        extensions = rng.sample(EXTENSIONS, min(len(EXTENSIONS), 2 + count // 3))
        stems = rng.sample(STEMS, count)
        downloads = {}
        names = []
        for i, stem in enumerate(stems):
            ext = extensions[i % len(extensions)] if i < len(extensions) else rng.choice(extensions)
            name = f"{stem}_{rng.randint(1, 99)}.{ext}"
            if count >= 6 and i == 0:
                name = f"{stem}_{rng.randint(1, 99)}.{ext.upper()}"
            if count >= 12 and i == 1:
                name = f"{stem.upper()}_{rng.randint(1, 99)}"
            downloads[name] = f"{stem} file, {rng.randint(10, 990)} KB"
            names.append(name)
        existing = []
        if count >= 8:
            ext = self._folder(names[-1])
            downloads[ext] = {f"old_{stems[-1]}.{ext}": "kept from last month"}
            existing.append(ext)
        if count >= 10:
            downloads[".download_cache"] = "partial transfer state"
        self.tree = {
            "home": {user: {"downloads": downloads, "documents": {"todo.txt": "sort the downloads"}}},
        }
        folders = sorted({self._folder(n) for n in names} - set(existing))
        reference = [{"name": "ls", "arguments": {"path": downloads_path}}]
        for folder in folders:
            reference.append({"name": "mkdir", "arguments": {"dir_name": f"{downloads_path}/{folder}"}})
        for name in sorted(names):
            reference.append({"name": "mv", "arguments": {
                "source": f"{downloads_path}/{name}",
                "destination": f"{downloads_path}/{self._folder(name)}/{name}",
            }})
        task = (
            f"Your working directory is {self.home}. Organise {downloads_path}: move every file in it into a "
            f"sub-folder of downloads named after the file's extension in lower case without the dot (for example "
            f"{downloads_path}/notes.TXT goes to {downloads_path}/txt/notes.TXT). Create the folders that do not "
            f"exist yet; "
            f"keep folders that already exist and what is inside them. A file without an extension goes into a "
            f"folder named 'other'. Leave hidden files (names starting with '.') where they are, and change nothing "
            f"else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _folder(self, name):
        if "." not in name:
            return "other"
        return name.rsplit(".", 1)[1].lower()

    def _toolbox(self):
        return FileSystem(self.tree, cwd=self.home)

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} List the folder first, create each missing extension folder "
                f"once, then move the files one by one.")

    def reference_action(self):
        return self.episode.reference_action()
