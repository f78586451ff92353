# shape: SQL library desk: look up returned titles and their hold queues, then give each book to its earliest hold (deleting that hold) or shelve it.
"""SQL tables: process returned library books against the hold queue (earliest hold first)."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.sqltable import SqlDatabase

ENV_SPEC = {
    "name": "LibraryHoldQueue",
    "domain": "tool_use",
    "description": "Books come back to a library. For each returned title find its book row and any holds; the "
                   "earliest hold gets the book (status 'hold_shelf', holder = that member, the hold row deleted), "
                   "a book with no hold becomes 'available' with no holder; scored by the final tables.",
    "reward_range": [0.0, 1.0],
    "max_turns": 26,
    "players": 1,
    "difficulty": {
        "returns": {"min": 1, "max": 6, "default": 3,
                    "description": "returned books to process (more holds to compare, look-alike titles)"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete"],
    "grounding": "Library circulation: a returned item goes to the first patron in its hold queue (first come, "
                 "first served by the day the hold was placed) and that hold is fulfilled; with no queue it goes "
                 "back on the shelf as available.",
    "tags": ["sql", "queue", "library", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

TITLES = ["Dune", "Dune Messiah", "Emma", "Beloved", "Ulysses", "Middlemarch", "Persuasion", "Rebecca",
          "The Hobbit", "The Hobbit Companion", "Hamlet", "Kindred", "Solaris", "Solaris Stories", "Walden",
          "Ivanhoe"]
MEMBERS = ["ada", "bo", "chen", "dev", "eli", "fay", "gus", "hana", "ivo", "jun", "kai", "lea"]


class LibraryHoldQueue:
    def __init__(self, returns=3):
        self.returns = returns
        self.books = []
        self.holds = []
        self.episode = None

    def reset(self, rng, options):
        titles = rng.sample(TITLES, min(len(TITLES), self.returns + 4))
        books, holds = [], []
        day_pool = rng.sample(range(1, 60), 40)
        for i, title in enumerate(titles):
            book_id = f"B{rng.randint(10, 99)}{i}"
            on_loan = i < self.returns or rng.random() < 0.4
            books.append({"book_id": book_id, "title": title, "status": "on_loan" if on_loan else "available",
                          "holder": rng.choice(MEMBERS) if on_loan else None})
            queue = rng.randint(0, 3) if i != 0 else rng.randint(1, 3)
            for member in rng.sample(MEMBERS, queue):
                holds.append({"hold_id": 500 + len(holds) * 3 + rng.randint(0, 2), "book_id": book_id,
                              "member": member, "placed_day": day_pool.pop()})
        returned = books[: self.returns]
        rng.shuffle(books)
        rng.shuffle(holds)
        self.books, self.holds = books, holds
        ids = [b["book_id"] for b in returned]
        reference = [
            {"name": "select", "arguments": {"table": "books", "where": [
                {"column": "title", "op": "in", "value": [b["title"] for b in returned]}]}},
            {"name": "select", "arguments": {"table": "holds", "where": [
                {"column": "book_id", "op": "in", "value": ids}], "order_by": "placed_day"}},
        ]
        for book in returned:
            queue = sorted((h for h in holds if h["book_id"] == book["book_id"]), key=lambda h: h["placed_day"])
            where = [{"column": "book_id", "op": "=", "value": book["book_id"]}]
            if queue:
                reference.append({"name": "update", "arguments": {"table": "books", "where": where, "values": {
                    "status": "hold_shelf", "holder": queue[0]["member"]}}})
                reference.append({"name": "delete", "arguments": {"table": "holds", "where": [
                    {"column": "hold_id", "op": "=", "value": queue[0]["hold_id"]}]}})
            else:
                reference.append({"name": "update", "arguments": {"table": "books", "where": where, "values": {
                    "status": "available", "holder": None}}})
        listing = "\n".join(f"  - {b['title']}" for b in sorted(returned, key=lambda b: b["title"]))
        task = (
            f"You run the returns desk. Tables: books (book_id, title, status, holder) and holds (hold_id, book_id, "
            f"member, placed_day). These titles were returned today (match titles exactly; similar titles are "
            f"different books):\n{listing}\n\nFor each returned book: if it has holds, the hold with the smallest "
            f"placed_day wins: set the book's status to 'hold_shelf' and holder to that member, and delete that one "
            f"hold row (other holds stay). If it has no holds, set status 'available' and holder to null. Change "
            f"nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return SqlDatabase({
            "books": {"columns": {"book_id": "TEXT", "title": "TEXT", "status": "TEXT", "holder": "TEXT"},
                      "primary_key": "book_id", "rows": [dict(b) for b in self.books]},
            "holds": {"columns": {"hold_id": "INTEGER", "book_id": "TEXT", "member": "TEXT", "placed_day": "INTEGER"},
                      "primary_key": "hold_id", "rows": [dict(h) for h in self.holds]},
        })

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Resolve titles to book ids first, read every hold of those ids "
                f"sorted by day, and only then write; a book with an empty queue still needs its update.")

    def reference_action(self):
        return self.episode.reference_action()
