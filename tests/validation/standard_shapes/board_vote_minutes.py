# shape: many read-only calls (cat every ballot, honour a correction) before a single write (one minutes file, ...
"""File system: read every director's ballot file (many reads), tally each motion and write ONE minutes file."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "BoardVoteMinutes",
    "domain": "tool_use",
    "description": "A board's ballot folder holds one file per director with a yes/no/abstain vote per motion; "
                   "a corrected ballot supersedes an earlier one. The agent reads them all and writes a single "
                   "minutes file with one exactly formatted line per motion. Scored by the final tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "directors": {"min": 3, "max": 9, "default": 5,
                      "description": "ballot files to read; from 5 one director filed a correction that supersedes "
                                     "their first ballot, from 7 a motion ties (a tie fails)"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Board resolutions by simple majority of votes cast (abstentions not counted, a tie fails), "
                 "recorded in minutes; a corrected ballot replaces the original.",
    "tags": ["filesystem", "many-reads-one-write", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

DIRECTORS = ["okoye", "petrov", "quinn", "rahman", "silva", "tan", "ueda", "varga", "weiss", "xu", "yilmaz"]
VOTES = ["yes", "no", "abstain"]


class BoardVoteMinutes:
    def __init__(self, directors=5):
        self.directors = directors
        self.tree = {}
        self.episode = None

    def reset(self, rng, options):
        n = self.directors
        names = rng.sample(DIRECTORS, n)
        motions = sorted(rng.sample(range(10, 60), 3))
        motions = [f"M-{m}" for m in motions]
        ballots = {d: {m: rng.choice(VOTES) for m in motions} for d in names}
        if n >= 7:
            tie_motion = motions[rng.randrange(3)]
            k = rng.randint(1, (n - 1) // 2)
            order = list(names)
            rng.shuffle(order)
            for j, d in enumerate(order):
                ballots[d][tie_motion] = "yes" if j < k else ("no" if j < 2 * k else "abstain")
        files = {}
        for d in names:
            files[f"ballot_{d}.txt"] = "".join(f"{m}: {ballots[d][m]}\n" for m in motions) + f"signed: {d}\n"
        corrected = None
        if n >= 5:
            corrected = rng.choice(names)
            first = {m: rng.choice(VOTES) for m in motions}
            files[f"ballot_{corrected}.txt"] = ("".join(f"{m}: {first[m]}\n" for m in motions) +
                                                f"signed: {corrected}\n")
            files[f"ballot_{corrected}_corrected.txt"] = ("CORRECTION: this ballot replaces my earlier one\n" +
                                                          "".join(f"{m}: {ballots[corrected][m]}\n" for m in motions)
                                                          + f"signed: {corrected}\n")
        date = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        self.tree = {"board": {"ballots": files, "minutes": {"2024-12-02.txt": "M-3: carried 4-1-0\n"}}}
        lines = []
        for m in motions:
            y = sum(1 for d in names if ballots[d][m] == "yes")
            no = sum(1 for d in names if ballots[d][m] == "no")
            a = sum(1 for d in names if ballots[d][m] == "abstain")
            lines.append(f"{m}: {'carried' if y > no else 'failed'} {y}-{no}-{a}")
        ref = [{"name": "cd", "arguments": {"folder": "/board/ballots"}}, {"name": "ls", "arguments": {}}]
        for fname in sorted(files):
            ref.append({"name": "cat", "arguments": {"file_name": fname}})
        ref.append({"name": "echo", "arguments": {"content": "\n".join(lines) + "\n",
                                                  "file_name": f"/board/minutes/{date}.txt"}})
        task = (f"Write the minutes of the {date} board vote. Read every ballot in /board/ballots (one per "
                f"director; a file starting with CORRECTION replaces that director's earlier ballot). A motion is "
                f"'carried' if it has more yes than no votes (abstentions do not count, a tie fails), else 'failed'. "
                f"Create /board/minutes/{date}.txt containing one line per motion in increasing motion number, in "
                f"the form 'M-17: carried 4-2-1' (yes-no-abstain counts, one vote per director), each line ending "
                f"with a newline and nothing else in the file. Change nothing else.")
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
        return (f"{self.episode.milestone_hint()} Tally only after reading every ballot; count each director once, "
                f"using their corrected ballot where there is one, and write the whole file in one echo.")

    def reference_action(self):
        return self.episode.reference_action()
