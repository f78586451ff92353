# shape: many read-only lookups before one write (ls + one cat per truck log, 7+ reads, then a single echo)
"""File system: read every refrigerated truck's temperature log and write one breach report."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "ColdChainBreachReport",
    "domain": "tool_use",
    "description": "Read the temperature log of every refrigerated truck of a depot (one file per truck) and write "
                   "a single breach report listing the trucks whose cargo stayed above the limit for two or more "
                   "consecutive readings, with each one's peak temperature; scored by the final file tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "trucks": {"min": 6, "max": 12, "default": 8,
                   "description": "truck logs to read (one cat each); from 8 a truck with a single-reading spike "
                                  "that is not a breach, from 10 a truck sitting exactly on the limit"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Cold-chain monitoring of chilled goods: loggers record the cargo temperature every half hour, "
                 "and an excursion counts only when the limit is exceeded for a sustained period.",
    "tags": ["filesystem", "multi-turn", "many-reads", "state-equality"],
    "max_obs_chars": 16000,
}

DEPOTS = ["rotterdam", "lyon", "leipzig", "porto", "gdansk", "turin", "ghent", "aarhus"]
CARGO = ["dairy", "salad", "fish", "vaccines", "berries", "meat", "flowers", "juice"]
LIMIT = 8.0


class ColdChainBreach:
    def __init__(self, trucks=8):
        self.trucks = trucks
        self.tree = {}
        self.depot = "/depot"
        self.logs = {}
        self.episode = None

    # -- scenario -------------------------------------------------------------------------------------------
    def _readings(self, rng, kind):
        count = 10
        temps = [round(rng.uniform(2.0, 6.8), 1) for _ in range(count)]
        if kind == "breach":
            start = rng.randint(1, count - 4)
            length = rng.randint(2, 3)
            for i in range(start, start + length):
                temps[i] = round(rng.uniform(8.1, 11.9), 1)
        elif kind == "spike":
            pos = rng.randint(1, count - 2)
            temps[pos] = round(rng.uniform(8.5, 12.5), 1)
        elif kind == "edge":
            pos = rng.randint(1, count - 4)
            for i in range(pos, pos + 3):
                temps[i] = LIMIT
        hour = rng.randint(5, 9)
        lines = []
        for i, t in enumerate(temps):
            minutes = hour * 60 + 30 * i
            lines.append(f"{minutes // 60:02d}:{minutes % 60:02d} {t:.1f}C")
        return temps, lines

    @staticmethod
    def _breached(temps):
        run = 0
        for t in temps:
            run = run + 1 if t > LIMIT else 0
            if run >= 2:
                return True
        return False

    def reset(self, rng, options):
        count = self.trucks
        depot = rng.choice(DEPOTS)
        night = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        self.depot = f"/depot/{depot}"
        ids = sorted(rng.sample(range(100, 1000), count))
        names = [f"TR-{i}" for i in ids]
        kinds = ["breach"] * rng.randint(1, 3)
        if count >= 8:
            kinds.append("spike")
        if count >= 10:
            kinds.append("edge")
        kinds = kinds + ["calm"] * (count - len(kinds))
        rng.shuffle(kinds)
        self.logs = {}
        files = {}
        for name, kind in zip(names, kinds):
            temps, lines = self._readings(rng, kind)
            self.logs[name] = temps
            header = f"# truck {name}, cargo: {rng.choice(CARGO)}, logger every 30 min"
            files[f"{name}.log"] = "\n".join([header, *lines])
        self.tree = {"depot": {depot: {
            "logs": files,
            "README.txt": "Truck loggers upload here. Reports go in the depot folder.",
            "archive": {"2024-week-52.txt": "no breaches"},
        }}}
        breached = [n for n in names if self._breached(self.logs[n])]
        report = "\n".join(f"{n} {max(self.logs[n]):.1f}" for n in breached)
        log_dir = f"{self.depot}/logs"
        reference = [{"name": "ls", "arguments": {"path": log_dir}}]
        for name in names:
            reference.append({"name": "cat", "arguments": {"file_name": f"{log_dir}/{name}.log"}})
        reference.append({"name": "echo", "arguments": {"content": report,
                                                        "file_name": f"{self.depot}/breaches.txt"}})
        task = (
            f"You are the night controller of the {depot} depot for the night of {night}; {count} refrigerated "
            f"trucks uploaded a log file each to {log_dir} (one line per reading: time, then the cargo temperature in C). A truck is in BREACH when "
            f"at least two consecutive readings are strictly above {LIMIT:.1f}C; a single reading above the limit, "
            f"or readings exactly at {LIMIT:.1f}C, is not a breach. Write the report file "
            f"{self.depot}/breaches.txt: one line per truck in breach, sorted by truck id, each line the truck id, "
            f"one space, and the highest temperature in its whole log with one decimal and no unit (for example "
            f"'TR-000 9.4'); lines separated by a single newline, no trailing newline. Change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return FileSystem(self.tree, cwd="/")

    # -- interface ------------------------------------------------------------------------------------------
    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Read every log before writing anything: a truck counts only "
                f"when two readings in a row exceed the limit, but its reported peak is the maximum of the whole "
                f"log. Write the report once, with all lines in one echo.")

    def reference_action(self):
        return self.episode.reference_action()
