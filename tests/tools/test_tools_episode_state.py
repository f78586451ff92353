"""Tool state belongs to one episode: a look-alike object (a subclass defining ``__eq__``/``__hash__`` to match
another episode's tool) reaches nothing of that episode's state."""

from __future__ import annotations

import gc

from spade_tools.episode_state import EpisodeSlots
from spade_tools.sqltable import SqlDatabase, ToolError

SECRET = {"vault": {"columns": {"k": "TEXT", "v": "TEXT"}, "primary_key": "k", "rows": [{"k": "pin", "v": "4711"}]}}


def look_alike(victim: SqlDatabase) -> SqlDatabase:
    """A subclass instance that claims to equal ``victim`` and hashes like it, built without ``__init__``."""

    class LookAlike(SqlDatabase):
        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return hash(victim)

    forged = object.__new__(LookAlike)
    forged._schema = dict(victim._schema)
    return forged


def test_a_look_alike_subclass_cannot_read_or_write_another_episodes_database() -> None:
    victim = SqlDatabase(SECRET)
    forged = look_alike(victim)
    for attempt in (lambda: forged.select("vault"), lambda: forged.update("vault", {"v": "0"}, []),
                    lambda: forged.snapshot()):
        try:
            attempt()
        except ToolError as err:
            assert "closed" in str(err)
        else:
            raise AssertionError("the look-alike reached another episode's connection")
    forged.close()  # closes nothing of the victim's
    assert victim.select("vault")["rows"] == [{"k": "pin", "v": "4711"}]


def test_slots_answer_only_the_holder_and_release_its_state_when_it_is_collected() -> None:
    released: list[str] = []
    slots: EpisodeSlots[str] = EpisodeSlots(released.append)

    class Holder:
        pass

    class Equal(Holder):
        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 0

    holder = Holder()
    slots.put(holder, "state")
    assert slots.get(holder) == "state"
    assert slots.get(Equal()) is None and slots.pop(Equal()) is None
    del holder
    gc.collect()
    assert released == ["state"] and len(slots) == 0

