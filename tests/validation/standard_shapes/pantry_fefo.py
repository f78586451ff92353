# shape: stock consumption first-expiry-first-out over a table and a recipe file, final-state check
"""Files + table: cook a recipe from a pantry, consuming ingredient lots first-expiring-first (FEFO)."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "CookFromPantryFefo",
    "domain": "tool_use",
    "description": "Read a recipe file, scale it to the requested servings, and take each ingredient from the "
                   "pantry table's lots in first-expiring-first-out order: lower partially used lots, delete "
                   "emptied ones; scored by the final pantry table.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "ingredients": {"min": 2, "max": 6, "default": 3,
                        "description": "ingredients in the recipe; each has two or three lots, so more updates "
                                       "and deletions; from 4 one ingredient needs more than its first lot"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete",
              "pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Kitchen stock rotation (FEFO: first expired, first out) as used in food-service inventory, "
                 "with recipes written per serving and scaled to a batch.",
    "tags": ["sqlite", "filesystem", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

DISHES = ["lentil_soup", "risotto", "pancakes", "chili", "flatbread", "curry", "granola", "pasta_bake"]
ITEMS = ["flour", "rice", "lentils", "oats", "sugar", "butter", "cheese", "tomatoes", "onions", "beans",
         "pasta", "milk"]
DATES = ["2025-10-03", "2025-10-07", "2025-10-12", "2025-10-18", "2025-10-25", "2025-11-02", "2025-11-09"]


class CookFromPantryFefo:
    def __init__(self, ingredients=3):
        self.ingredients = ingredients
        self.lots = []
        self.tree = {}
        self.episode = None

    def reset(self, rng, options):
        count = self.ingredients
        dish = rng.choice(DISHES)
        servings = rng.randint(2, 6)
        items = rng.sample(ITEMS, count)
        extras = [i for i in ITEMS if i not in items][:2]
        per_serving = {}
        self.lots = []
        lot_numbers = rng.sample(range(100, 999), 3 * count + 4)
        reference = [{"name": "cat", "arguments": {"file_name": f"/recipes/{dish}.txt"}},
                     {"name": "select", "arguments": {"table": "pantry", "where": [
                         {"column": "item", "op": "in", "value": sorted(items)}]}}]
        for k, item in enumerate(items):
            grams = rng.randint(4, 30) * 5
            per_serving[item] = grams
            need = grams * servings
            n_lots = rng.randint(2, 3)
            dates = sorted(rng.sample(DATES, n_lots))
            if count >= 4 and k == 0:
                first = rng.randint(1, need // 5 - 1) * 5 if need >= 10 else 5
            else:
                first = need + rng.randint(1, 40) * 5
            sizes = [first] + [rng.randint(20, 120) * 5 for _ in range(n_lots - 1)]
            if sum(sizes) < need:
                sizes[-1] += need - sum(sizes) + 50
            lots = []
            for j in range(n_lots):
                lot = f"L{lot_numbers.pop()}"
                lots.append({"lot": lot, "item": item, "grams": sizes[j], "expires": dates[j]})
            self.lots.extend(lots)
            for row in sorted(lots, key=lambda r: (r["expires"], r["lot"])):
                if need <= 0:
                    break
                take = min(need, row["grams"])
                need -= take
                if take == row["grams"]:
                    reference.append({"name": "delete", "arguments": {"table": "pantry", "where": [
                        {"column": "lot", "op": "=", "value": row["lot"]}]}})
                else:
                    reference.append({"name": "update", "arguments": {"table": "pantry",
                                                                      "values": {"grams": row["grams"] - take},
                                                                      "where": [{"column": "lot", "op": "=",
                                                                                 "value": row["lot"]}]}})
        for item in extras:
            self.lots.append({"lot": f"L{lot_numbers.pop()}", "item": item, "grams": rng.randint(20, 90) * 5,
                              "expires": rng.choice(DATES)})
        rng.shuffle(self.lots)
        recipe = "".join(f"{item}: {per_serving[item]} g per serving\n" for item in items)
        self.tree = {"recipes": {f"{dish}.txt": f"# {dish.replace('_', ' ')}\n" + recipe,
                                 "notes.txt": "Always rotate stock: oldest expiry first.\n"}}
        task = (
            f"Cook {servings} servings of {dish.replace('_', ' ')}. The recipe in /recipes/{dish}.txt gives grams "
            f"per serving. Take each ingredient's total from table 'pantry' lot by lot, using the lot with the "
            f"earliest 'expires' date first and moving to the next-earliest only when a lot runs out. Lower the "
            f"'grams' of a lot you use in part; delete a lot you use up completely. Leave every other lot, and "
            f"the files, unchanged."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        db = SqlDatabase(tables={"pantry": {
            "columns": {"lot": "TEXT", "item": "TEXT", "grams": "INTEGER", "expires": "TEXT"},
            "primary_key": "lot", "rows": [dict(r) for r in self.lots]}})
        return Toolbox(db, FileSystem(self.tree, cwd="/recipes"))

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset the environment to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "the episode is already over"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Multiply each per-serving amount by the servings, then walk "
                f"that ingredient's lots by expiry date; a lot smaller than what is still needed is used up.")

    def reference_action(self):
        return self.episode.reference_action()
