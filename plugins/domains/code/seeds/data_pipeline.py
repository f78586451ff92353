"""Complete a data-transformation function: filter, derive, sort, limit and aggregate a list of records."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "DataPipeline",
    "domain": "code",
    "description": (
        "Complete transform(records): apply a described pipeline of steps (filter, derived field, sort with "
        "tie-break, limit, group-and-aggregate) to a list of employee records. Hidden tests run in the sandbox."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "stages": {"min": 1, "max": 5, "default": 3, "description": "number of pipeline steps to implement"},
        "hidden_tests": {"min": 2, "max": 8, "default": 5, "description": "hidden record lists (the empty list first)"},
    },
    "grounding": (
        "Everyday data wrangling as in pandas/SQL pipelines (WHERE, computed columns, ORDER BY with a tie-break, "
        "LIMIT, GROUP BY with SUM/COUNT) written over plain lists of dicts."
    ),
    "tags": ["code", "data", "transformation", "multi-turn"],
}

NAMES = ["ana", "ben", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo", "kit", "lu"]
DEPTS = ["ops", "dev", "hr"]
KINDS = ["filter", "derive", "sort", "limit", "final"]


def make_stage(kind, rng, chosen):
    """One pipeline step: its kind, parameters, specification line and reference code lines."""
    if kind == "filter":
        variant = rng.choice(["age", "dept", "salary"])
        if variant == "age":
            value = rng.randint(25, 45)
            return {"kind": kind, "variant": variant, "value": value,
                    "text": f"keep only records whose age is at least {value}",
                    "code": [f"    rows = [r for r in rows if r['age'] >= {value}]"]}
        if variant == "dept":
            value = rng.choice(DEPTS)
            return {"kind": kind, "variant": variant, "value": value,
                    "text": f"drop every record whose dept is {value!r}",
                    "code": [f"    rows = [r for r in rows if r['dept'] != {value!r}]"]}
        value = rng.choice([4000, 5000, 6000])
        return {"kind": kind, "variant": variant, "value": value,
                "text": f"keep only records whose salary is strictly greater than {value}",
                "code": [f"    rows = [r for r in rows if r['salary'] > {value}]"]}
    if kind == "derive":
        if rng.random() < 0.5:
            value = rng.choice([5, 10, 15])
            return {"kind": kind, "variant": "bonus", "value": value,
                    "text": f"add a key 'bonus' to each record: salary * {value} // 100 (integer division)",
                    "code": ["    for r in rows:", f"        r['bonus'] = r['salary'] * {value} // 100"]}
        value = rng.choice([35, 40, 45])
        return {"kind": kind, "variant": "band", "value": value,
                "text": f"add a key 'band' to each record: 'senior' if age >= {value} else 'junior'",
                "code": ["    for r in rows:", f"        r['band'] = 'senior' if r['age'] >= {value} else 'junior'"]}
    if kind == "sort":
        if rng.random() < 0.5:
            return {"kind": kind, "variant": "salary", "value": 0,
                    "text": "sort by salary, highest first; break ties by name in alphabetical order",
                    "code": ["    rows = sorted(rows, key=lambda r: (-r['salary'], r['name']))"]}
        return {"kind": kind, "variant": "age", "value": 0,
                "text": "sort by age, youngest first; break ties by name in alphabetical order",
                "code": ["    rows = sorted(rows, key=lambda r: (r['age'], r['name']))"]}
    if kind == "limit":
        value = rng.randint(2, 4)
        return {"kind": kind, "variant": "limit", "value": value,
                "text": f"keep only the first {value} records (all of them if there are fewer)",
                "code": [f"    rows = rows[:{value}]"]}
    derived = [s["variant"] for s in chosen if s["kind"] == "derive"]
    if derived == ["bonus"]:
        variant = "dept_bonus"
    elif derived == ["band"]:
        variant = "band_count"
    else:
        variant = rng.choice(["dept_salary", "names", "dept_count"])
    texts = {
        "dept_bonus": ("return a dict mapping each dept to the total bonus of its remaining records",
                       "dept", "r['bonus']"),
        "band_count": ("return a dict mapping each band to the number of remaining records", "band", "1"),
        "dept_salary": ("return a dict mapping each dept to the total salary of its remaining records",
                        "dept", "r['salary']"),
        "dept_count": ("return a dict mapping each dept to the number of remaining records", "dept", "1"),
        "names": ("return the list of the remaining names, in order", "", ""),
    }
    text, key, amount = texts[variant]
    if variant == "names":
        code = ["    return [r['name'] for r in rows]"]
    else:
        code = ["    totals = {}", "    for r in rows:",
                f"        totals[r[{key!r}]] = totals.get(r[{key!r}], 0) + {amount}", "    return totals"]
    return {"kind": kind, "variant": variant, "value": 0, "text": text, "code": code}


def apply_stage(stage, rows):
    kind, variant, value = stage["kind"], stage["variant"], stage["value"]
    if kind == "filter":
        if variant == "age":
            return [r for r in rows if r["age"] >= value]
        if variant == "dept":
            return [r for r in rows if r["dept"] != value]
        return [r for r in rows if r["salary"] > value]
    if kind == "derive":
        out = []
        for r in rows:
            new = dict(r)
            if variant == "bonus":
                new["bonus"] = r["salary"] * value // 100
            else:
                new["band"] = "senior" if r["age"] >= value else "junior"
            out.append(new)
        return out
    if kind == "sort":
        if variant == "salary":
            return sorted(rows, key=lambda r: (-r["salary"], r["name"]))
        return sorted(rows, key=lambda r: (r["age"], r["name"]))
    if kind == "limit":
        return rows[:value]
    if variant == "names":
        return [r["name"] for r in rows]
    field = {"dept_bonus": "dept", "band_count": "band", "dept_salary": "dept", "dept_count": "dept"}[variant]
    totals = {}
    for r in rows:
        if variant == "dept_bonus":
            amount = r["bonus"]
        elif variant == "dept_salary":
            amount = r["salary"]
        else:
            amount = 1
        totals[r[field]] = totals.get(r[field], 0) + amount
    return totals


def make_records(rng, size):
    names = rng.sample(NAMES, size)
    return [
        {"name": name, "dept": rng.choice(DEPTS), "age": rng.choice([22, 28, 35, 40, 41, 45, 52, 60]),
         "salary": rng.choice([3500, 4000, 5000, 5000, 6000, 7500, 9000])}
        for name in names
    ]


class DataPipeline:
    def __init__(self, stages=3, hidden_tests=5):
        self.stages = stages
        self.hidden_tests = hidden_tests
        self.pipeline = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def expected(self, records):
        rows = [dict(r) for r in records]
        for stage in self.pipeline:
            rows = apply_stage(stage, rows)
        return rows

    def reset(self, rng, options):
        picked = rng.sample(KINDS, self.stages)
        kinds = [k for k in KINDS if k in picked]
        self.pipeline = []
        for kind in kinds:
            self.pipeline.append(make_stage(kind, rng, self.pipeline))
        self.turn = 0
        inputs = [make_records(rng, rng.randint(3, 5)) for _ in range(2)]
        inputs.append([])
        for _ in range(self.hidden_tests - 1):
            inputs.append(make_records(rng, rng.randint(2, 7)))
        self.tests, self.labels, self.visible = [], [], []
        for i, records in enumerate(inputs):
            call = f"transform({records!r})"
            expected = self.expected(records)
            test = equality_test(call, expected)
            self.tests.append(test)
            self.labels.append(f"{call} == {expected!r}")
            if i < 2:
                self.visible.append(test)
        return self._task_text(), {"stages": len(self.pipeline), "tests": len(self.tests)}

    def _task_text(self):
        steps = "\n".join(f"  {i + 1}. {s['text']}" for i, s in enumerate(self.pipeline))
        if self.pipeline[-1]["kind"] != "final":
            steps = steps + "\n  Return the resulting list of records (dicts)."
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            "Complete transform(records). Each record is a dict with keys 'name' (str, unique), 'dept' (str), "
            f"'age' (int) and 'salary' (int). Apply these steps in order:\n{steps}\n\n"
            "```python\ndef transform(records):\n    # TODO: implement the steps above\n    ...\n```\n\n"
            f"Examples:\n{examples}\n\n{len(self.tests) - len(self.visible)} hidden tests check more inputs. Reply "
            f"with the complete function in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "transform" not in defined_names(code):
            error = "your code does not define transform() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self._task_text()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels, 2)
        return f"{feedback}\nFix transform and send it again. Turns left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        notes = []
        for stage in self.pipeline:
            if stage["kind"] == "sort":
                notes.append("sort with a key tuple so the name tie-break is applied")
            elif stage["kind"] == "limit":
                notes.append("the limit applies after the earlier steps, so its result depends on their order")
            elif stage["kind"] == "derive":
                notes.append("work on copies of the records when adding keys")
            elif stage["kind"] == "final" and stage["variant"] != "names":
                notes.append("an empty input must give an empty dict, and only groups that occur appear")
        if not notes:
            notes.append("apply the steps exactly in the listed order and return the records themselves")
        return "Plan: " + "; ".join(notes) + "."

    def reference_action(self):
        lines = ["def transform(records):", "    rows = [dict(r) for r in records]"]
        for stage in self.pipeline:
            lines = lines + stage["code"]
        if self.pipeline[-1]["kind"] != "final":
            lines.append("    return rows")
        return "```python\n" + "\n".join(lines) + "\n```"
