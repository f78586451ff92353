# expect: accepted
"""A tool task: sum each region's sales and write one report file per region, then finish."""

import json

ENV_SPEC = {
    "name": "RegionRollupReports",
    "domain": "tool_use",
    "description": "Read sales.csv, write one report file per region with its total, then call finish.",
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "difficulty": {"rows": {"min": 4, "max": 16, "default": 8, "description": "sales rows"}},
    "grounding": "Regional sales roll-ups: totals grouped by region.",
    "tools": ["read_file", "write_file", "finish"],
    "tags": ["tool-use", "files"],
}

REGIONS = ["north", "south", "east", "west", "central"]


class RegionRollupReports:
    def __init__(self, rows=8):
        self.rows = rows
        self.sales = []
        self.files = {}
        self.regions = []
        self.opened = False

    def reset(self, rng, options):
        self.regions = sorted(rng.sample(REGIONS, 2))
        self.sales = [(rng.choice(self.regions), rng.randint(10, 99)) for _ in range(self.rows)]
        for region in self.regions:
            self.sales.append((region, rng.randint(10, 99)))
        self.opened = False
        self.files = {"sales.csv": "region,amount\n" + "\n".join(f"{r},{a}" for r, a in self.sales)}
        text = ("Tools (one JSON call per turn): {\"tool\": \"read_file\", \"path\": P}, "
                "{\"tool\": \"write_file\", \"path\": P, \"content\": TEXT}, {\"tool\": \"finish\"}. "
                "Read sales.csv and write report_<region>.txt for each region in it, containing that region's "
                "total amount as a whole number; then call finish.")
        return text, {}

    def totals(self):
        out = {}
        for region, amount in self.sales:
            out[region] = out.get(region, 0) + amount
        return out

    def done_right(self):
        for region, total in self.totals().items():
            content = self.files.get(f"report_{region}.txt")
            if content is None or content.strip() != str(total):
                return False
        return True

    def step(self, action):
        try:
            call = json.loads(action)
        except ValueError:
            return "Reply with one JSON tool call.", 0.0, False, False, {"format_error": "not JSON"}
        if not isinstance(call, dict) or call.get("tool") not in ("read_file", "write_file", "finish"):
            return "Unknown tool.", 0.0, False, False, {"format_error": "unknown tool"}
        tool = call["tool"]
        if tool == "read_file":
            path = call.get("path")
            if not isinstance(path, str) or path not in self.files:
                return "No such file.", 0.0, False, False, {"action_is_valid": False}
            self.opened = self.opened or path == "sales.csv"
            return self.files[path], 0.0, False, False, {}
        if tool == "write_file":
            path, content = call.get("path"), call.get("content")
            if not isinstance(path, str) or not isinstance(content, str) or len(path) > 60 or len(content) > 200:
                return "write_file needs a path and a text content.", 0.0, False, False, {"format_error": "args"}
            self.files[path] = content
            return "Written.", 0.0, False, False, {}
        if self.done_right():
            return "All reports are right.", 1.0, True, False, {"success": True}
        return "Some report is missing or wrong; the task is over.", 0.0, True, False, {}

    def privileged_hint(self):
        return "Group the rows of sales.csv by region and add each group's amounts."

    def reference_action(self):
        if not self.opened:
            return json.dumps({"tool": "read_file", "path": "sales.csv"})
        for region, total in sorted(self.totals().items()):
            if self.files.get(f"report_{region}.txt") != str(total):
                return json.dumps({"tool": "write_file", "path": f"report_{region}.txt", "content": str(total)})
        return json.dumps({"tool": "finish"})
