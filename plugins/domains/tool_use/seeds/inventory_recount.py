"""SQL table: apply a stock count to an inventory table and recompute every row's reorder status."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.sqltable import SqlDatabase

ENV_SPEC = {
    "name": "InventoryRecount",
    "domain": "tool_use",
    "description": "Update an inventory table with the quantities from a stock count, then set each row's "
                   "status from its quantity and reorder level; scored by the final table contents.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "items": {"min": 4, "max": 20, "default": 8,
                  "description": "rows in the inventory; about half of them are counted"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete"],
    "grounding": "Inventory control: a cycle count overrides the book quantity, and an item needs reordering "
                 "when its stock falls below its reorder point.",
    "tags": ["sqlite", "database", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

PRODUCTS = [
    "hex bolt M6", "hex bolt M8", "washer 8mm", "wood screw 4x40", "wall plug 6mm", "cable tie 200mm",
    "hinge 75mm", "drawer slide 400mm", "shelf bracket", "door handle", "padlock 40mm", "tape measure 5m",
    "sandpaper P120", "paint brush 50mm", "masking tape", "wood glue 250ml", "drill bit 6mm", "saw blade",
    "spirit level", "utility knife", "work gloves L", "safety glasses",
]


class InventoryRecount:
    def __init__(self, items=8):
        self.items = items
        self.rows = []
        self.episode = None

    def reset(self, rng, options):
        names = rng.sample(PRODUCTS, self.items)
        rows = []
        for i, name in enumerate(names):
            level = rng.choice([5, 10, 20, 25, 50])
            qty = rng.randint(0, level * 3)
            stale = rng.random() < 0.3
            status = ("ok" if qty < level else "reorder") if stale else ("reorder" if qty < level else "ok")
            rows.append({"sku": f"SKU-{100 + i * 7 + rng.randint(0, 6)}", "name": name, "qty": qty,
                         "reorder_level": level, "status": status})
        counted = rng.sample(rows, max(1, self.items // 2))
        counts = {}
        for row in counted:
            delta = rng.choice([-12, -7, -3, 0, 2, 5, 9]) if row["qty"] > 12 else rng.choice([0, 1, 4, 8])
            counts[row["sku"]] = max(0, row["qty"] + delta)
        if all(counts[row["sku"]] == row["qty"] for row in counted):
            first = counted[0]
            counts[first["sku"]] = first["qty"] + 3
        self.rows = rows
        reference = [{"name": "select", "arguments": {"table": "inventory"}}]
        for row in rows:
            if row["sku"] in counts and counts[row["sku"]] != row["qty"]:
                reference.append({"name": "update", "arguments": {
                    "table": "inventory", "values": {"qty": counts[row["sku"]]},
                    "where": [{"column": "sku", "op": "=", "value": row["sku"]}]}})
        final = {row["sku"]: counts.get(row["sku"], row["qty"]) for row in rows}
        for status in ("reorder", "ok"):
            wrong = [row["sku"] for row in rows
                     if ("reorder" if final[row["sku"]] < row["reorder_level"] else "ok") == status
                     and row["status"] != status]
            if wrong:
                reference.append({"name": "update", "arguments": {
                    "table": "inventory", "values": {"status": status},
                    "where": [{"column": "sku", "op": "in", "value": wrong}]}})
        report = "\n".join(f"  {sku}: {qty}" for sku, qty in sorted(counts.items()))
        task = (
            f"The table 'inventory' (sku, name, qty, reorder_level, status) is out of date. Today's stock count "
            f"found these quantities:\n{report}\n\n"
            f"Set qty to the counted value for each counted SKU (other rows keep their qty). Then make every row's "
            f"status correct: 'reorder' when qty is below reorder_level, otherwise 'ok'. Some statuses were wrong "
            f"even before the count. Do not change anything else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return SqlDatabase({"inventory": {
            "columns": {"sku": "TEXT", "name": "TEXT", "qty": "INTEGER", "reorder_level": "INTEGER", "status": "TEXT"},
            "primary_key": "sku",
            "rows": self.rows,
        }})

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Read the whole table first; the status depends on the quantity "
                f"after the count, so fix quantities before statuses.")

    def reference_action(self):
        return self.episode.reference_action()
