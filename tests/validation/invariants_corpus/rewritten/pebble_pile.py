# expect: same_draws
# twin: take_away_bot
# flaw: the take-away game rewritten with new helpers, names and wording: the same pile, bot and rewards on every seed
"""Pebbles on a table: you and a house player remove pebbles; whoever clears the table wins."""

ENV_SPEC = {
    "name": "PebblePile",
    "domain": "games",
    "description": "Remove 1, 2 or 3 pebbles per turn against the house; clearing the table wins.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "difficulty": {"pebbles": {"min": 10, "max": 40, "default": 25, "description": "most pebbles at the start"}},
    "grounding": "Subtraction games: a pile that is a multiple of four is lost for the player to move.",
    "tags": ["game", "pebbles", "house"],
}


def house_reply(left, twist):
    if left % 4:
        return left % 4
    return 1 + (left + twist) % 3 if left > 3 else left


def fresh_pile(rng, most):
    left = rng.randint(10, most)
    while left % 4 == 0:
        left = rng.randint(10, most)
    return left


class PebblePile:
    def __init__(self, pebbles=25):
        self.most = pebbles
        self.left = 0
        self.twist = 0

    def reset(self, rng, options):
        self.left = fresh_pile(rng, self.most)
        self.twist = rng.randint(0, 2)
        return self.say("Pebbles are on the table."), {}

    def say(self, lead):
        return f"{lead} There are {self.left} pebbles. Remove 1, 2 or 3 of them (send the count)."

    def step(self, action):
        count = action.strip()
        if count not in ("1", "2", "3") or int(count) > self.left:
            return self.say(f"You cannot remove '{count[:20]}'."), 0.0, False, False, \
                {"format_error": "expected 1, 2 or 3", "success": False}
        self.left -= int(count)
        if not self.left:
            return "You cleared the table and win.", 1.0, True, False, {"success": True}
        reply = house_reply(self.left, self.twist)
        self.left -= reply
        if not self.left:
            return f"The house removed {reply} and cleared the table. You lose.", 0.0, True, False, \
                {"success": False}
        return self.say(f"You removed {count}, the house removed {reply}."), 0.0, False, False, {"success": False}

    def privileged_hint(self):
        return "Hand the house a table with a multiple of four pebbles."

    def reference_action(self):
        return str(self.left % 4 or 1)
