# shape: BFCL file system (cd/ls/cat/mkdir/mv): read each scanned letter, move+rename it into the clinic folder ...
"""File system: file scanned referral letters into per-clinic folders, where the clinic is only named inside each letter."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "ReferralLetterFiling",
    "domain": "tool_use",
    "description": "A clinic inbox holds scanned referral letters whose file names say nothing about where they "
                   "go; the agent reads each letter (cat), moves it into the folder of the clinic named inside, "
                   "renaming it to the referral number, and deletes nothing. Scored by the final directory tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "letters": {"min": 2, "max": 8, "default": 4,
                    "description": "letters to file; from 4 one letter is a duplicate scan marked VOID that must go "
                                   "to the void folder instead, from 6 a clinic folder is missing and must be made"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Hospital referral workflow: a scanned referral letter names the receiving clinic and carries a "
                 "referral number; duplicates are voided, never deleted (records retention).",
    "tags": ["filesystem", "multi-turn", "state-equality", "cd-ls-mv-cat"],
    "max_obs_chars": 16000,
}

CLINICS = ["cardiology", "dermatology", "neurology", "orthopaedics", "oncology", "urology", "rheumatology"]
DOCTORS = ["Dr. Aydin", "Dr. Bauer", "Dr. Chen", "Dr. Diallo", "Dr. Evans", "Dr. Fujita", "Dr. Garcia"]


class ReferralLetterFiling:
    def __init__(self, letters=4):
        self.letters = letters
        self.tree = {}
        self.episode = None

    def reset(self, rng, options):
        n = self.letters
        clinics = rng.sample(CLINICS, min(len(CLINICS), 2 + n // 2))
        scans = {}
        plan = []
        used_numbers = set()
        for i in range(n):
            clinic = rng.choice(clinics)
            number = rng.randint(10000, 99999)
            while number in used_numbers:
                number = rng.randint(10000, 99999)
            used_numbers.add(number)
            void = n >= 4 and i == n - 1
            name = f"scan_{rng.randint(100, 999)}{i}.txt"
            body = (f"REFERRAL R-{number}\nFrom: {rng.choice(DOCTORS)}\nTo clinic: {clinic.upper()}\n"
                    f"Priority: {rng.choice(['routine', 'urgent', 'soon'])}\n")
            if void:
                body = "VOID - duplicate scan\n" + body
            scans[name] = body
            plan.append((name, "void" if void else clinic, f"R-{number}.txt"))
        folders = {c: {} for c in clinics}
        folders["void"] = {}
        missing = None
        if n >= 6:
            targets = sorted({p[1] for p in plan if p[1] != "void"})
            missing = targets[0]
            del folders[missing]
        self.tree = {"clinic": {"inbox": scans, "letters": folders, "README.txt": "Inbox is scanned nightly."}}
        ref = [{"name": "cd", "arguments": {"folder": "/clinic/inbox"}}, {"name": "ls", "arguments": {}}]
        for name, _, _ in plan:
            ref.append({"name": "cat", "arguments": {"file_name": name}})
        if missing:
            ref.append({"name": "mkdir", "arguments": {"dir_name": f"/clinic/letters/{missing}"}})
        for name, folder, new in plan:
            ref.append({"name": "mv", "arguments": {"source": name, "destination": f"/clinic/letters/{folder}/{new}"}})
        task = ("You are at /. Every file in /clinic/inbox is a scanned referral letter. For each one, read it and "
                "move it into /clinic/letters/<clinic>/ where <clinic> is the receiving clinic written in the letter, "
                "in lower case, renaming the file to its referral number followed by .txt (a letter with 'REFERRAL "
                "R-12345' becomes R-12345.txt). A letter whose first line says VOID goes to /clinic/letters/void/ "
                "instead (same renaming rule). Create a clinic folder if it does not exist yet. Delete nothing and "
                "change nothing else; the inbox should end up empty.")
        self.episode = ToolEpisode(self._toolbox, ref, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return FileSystem(self.tree, cwd="/")

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "episode already finished"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Read every letter before moving anything, and check that the "
                f"target clinic folder exists; the file name alone never tells you the clinic.")

    def reference_action(self):
        return self.episode.reference_action()
