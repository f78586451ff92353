# shape: a BFCL-style multi-turn inventory task: read every warehouse's stock, then move units with two writes
"""Each warehouse has its own stock table; read them all (list_tables and select change nothing), then move units of
one item from the warehouse that holds the most of it to the shop. Scored by the final tables."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.sqltable import SqlDatabase

ENV_SPEC = {
    "name": "WarehouseRebalance",
    "domain": "tool_use",
    "description": "Read the stock tables of several warehouses with SQL-table tools, then move units of one item "
                   "from the best-stocked warehouse to the shop; scored by the final tables.",
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {"warehouses": {"min": 2, "max": 5, "default": 4, "description": "warehouse tables to read"}},
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete"],
    "grounding": "Stock rebalancing: a transfer takes units from the location with the most on hand and adds them "
                 "to the one that ran short, keeping the total constant.",
    "tags": ["sqlite", "inventory", "multi-turn", "read-only"],
}

SITES = ["north", "south", "east", "west", "central"]
ITEMS = ["kettle", "toaster", "blender", "lamp", "fan", "heater", "mixer", "iron"]


class WarehouseRebalance:
    def __init__(self, warehouses=4):
        self.warehouses = warehouses
        self.tables = {}
        self.episode = None

    def reset(self, rng, options):
        item = rng.choice(ITEMS)
        sites = SITES[:self.warehouses]
        stock = {}
        while len(set(stock.values())) != len(sites):
            stock = {site: rng.randint(12, 90) for site in sites}
        best = max(sites, key=lambda s: stock[s])
        moved = rng.choice([5, 8, 10, 12])
        self.tables = {}
        for site in sites:
            rows = [{"item": name, "qty": stock[site] if name == item else rng.randint(0, 60)}
                    for name in ITEMS]
            self.tables[f"stock_{site}"] = {"columns": {"item": "TEXT", "qty": "INTEGER"}, "primary_key": "item",
                                            "rows": rows}
        shop = rng.randint(0, 3)
        self.tables["shop"] = {"columns": {"item": "TEXT", "qty": "INTEGER"}, "primary_key": "item",
                               "rows": [{"item": name, "qty": shop if name == item else rng.randint(2, 20)}
                                        for name in ITEMS]}
        where = [{"column": "item", "op": "=", "value": item}]
        reference = [{"name": "list_tables", "arguments": {}}]
        reference += [{"name": "select", "arguments": {"table": f"stock_{site}", "where": where}} for site in sites]
        reference += [
            {"name": "update", "arguments": {"table": f"stock_{best}", "values": {"qty": stock[best] - moved},
                                             "where": where}},
            {"name": "update", "arguments": {"table": "shop", "values": {"qty": shop + moved}, "where": where}},
        ]
        task = (f"The shop is running out of {item}s. The warehouse tables are named stock_<site> (item, qty). Move "
                f"{moved} {item}s from the warehouse that has the most of them to the shop table: lower that "
                f"warehouse's qty by {moved} and raise the shop's qty by {moved}. Change nothing else.")
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return SqlDatabase(self.tables)

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Read the item's row in every warehouse before you change "
                "anything; both updates keep the total number of units the same.")

    def reference_action(self):
        return self.episode.reference_action()
