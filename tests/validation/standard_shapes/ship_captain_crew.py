# shape: two-player chance game with hold/roll decisions (Ship, Captain and Crew dice), played as a multi-hand match by both seats
"""Ship, Captain and Crew: a dice match for two seats played by the same policy."""

from spade_domains.games.verify import move_tokens, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "ShipCaptainCrewMatch",
    "domain": "games",
    "description": (
        "Ship, Captain and Crew with five dice. On your turn you have three rolls: a 6 (ship), then a 5 (captain), "
        "then a 4 (crew) are set aside automatically as soon as they may be; once all three are set aside, the "
        "other two dice are your cargo and score their sum. With rolls left you may stop, reroll both cargo dice "
        "('roll') or reroll only the lower one ('roll low'). Higher cargo wins the hand; the match is a series of "
        "hands and more hands won wins. A seat may resign; three invalid moves in a row forfeit."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 120,
    "players": 2,
    "difficulty": {
        "hands": {"min": 3, "max": 7, "default": 5, "description": "hands in the match (first seat alternates)"},
    },
    "grounding": "Ship, Captain and Crew (also 'Ship of Fools' / 6-5-4), a tavern dice game.",
    "tags": ["two-player", "zero-sum", "dice", "chance", "match", "self-play"],
}

INVALID_LIMIT = 3
NEEDED = (6, 5, 4)
ROLE = ("ship", "captain", "crew")


def outcome_value(score, target):
    if target is None:
        return score / 12.0
    return 1.0 if score > target else 0.5 if score == target else 0.0


def cargo_value(a, b, rolls, target):
    """Best expected value with cargo (a, b) and `rolls` rolls left, against `target` (None: maximise score)."""
    best = outcome_value(a + b, target)
    if rolls:
        both = sum(cargo_value(x, y, rolls - 1, target) for x in range(1, 7) for y in range(1, 7)) / 36.0
        keep = max(a, b)
        low = sum(cargo_value(keep, x, rolls - 1, target) for x in range(1, 7)) / 6.0
        best = max(best, both, low)
    return best


class ShipCaptainCrew:
    def __init__(self, hands=5):
        self.hands = hands
        self.stream = []
        self.pos = 0
        self.hand = 0
        self.player = 0
        self.rolls_left = 3
        self.locked = 0
        self.dice = []
        self.cargo = []
        self.hand_scores = [None, None]
        self.won = [0, 0]
        self.invalid = [0, 0]
        self.done = False
        self.log = []

    def reset(self, rng, options):
        self.stream = [rng.randint(1, 6) for _ in range(self.hands * 2 * 3 * 5 + 20)]
        self.pos = 0
        self.hand = 0
        self.won = [0, 0]
        self.invalid = [0, 0]
        self.done = False
        self.log = []
        self.start_hand()
        return self.observation("New match."), {"player_id": self.player, "legal_moves": self.legal_moves()}

    def start_hand(self):
        self.hand_scores = [None, None]
        self.player = self.hand % 2
        self.start_turn()

    def start_turn(self):
        self.rolls_left = 3
        self.locked = 0
        self.dice = []
        self.cargo = []

    def draw(self):
        value = self.stream[self.pos % len(self.stream)]
        self.pos += 1
        return value

    def legal_moves(self):
        if self.locked == 3 and self.rolls_left:
            return ["stop", "roll", "roll low", "resign"]
        return ["roll", "stop", "resign"]

    def status(self):
        parts = [ROLE[k] for k in range(self.locked)]
        held = ", ".join(parts) if parts else "nothing"
        text = f"Set aside: {held}."
        if self.locked == 3:
            text += f" Cargo: {self.cargo[0]} and {self.cargo[1]} (worth {sum(self.cargo)})."
        elif self.dice:
            text += f" Last roll of the free dice: {' '.join(map(str, self.dice))}."
        return text

    def observation(self, note):
        p = self.player
        other = self.hand_scores[1 - p]
        lines = [note, f"You are player {p}. Hand {self.hand + 1} of {self.hands}; hands won: player 0 "
                       f"{self.won[0]}, player 1 {self.won[1]}.",
                 f"Opponent's cargo this hand: {other}." if other is not None else
                 "Your opponent plays this hand after you.",
                 f"{self.status()} Rolls left: {self.rolls_left}.",
                 "Moves: 'roll' (roll the free dice, or both cargo dice), 'roll low' (reroll only the lower cargo "
                 "die), 'stop' (end your turn), 'resign'."]
        if self.log:
            lines.append("Recent hands: " + "; ".join(self.log[-3:]))
        return "\n".join(lines)

    def roll(self, low_only):
        if self.locked == 3:
            if low_only:
                keep = max(self.cargo)
                self.cargo = [keep, self.draw()]
            else:
                self.cargo = [self.draw(), self.draw()]
        else:
            self.dice = [self.draw() for _ in range(5 - self.locked)]
            for need in NEEDED[self.locked:]:
                if need in self.dice:
                    self.dice.remove(need)
                    self.locked += 1
                else:
                    break
            if self.locked == 3:
                self.cargo = list(self.dice)
                self.dice = []
        self.rolls_left -= 1

    def end_turn(self, mover, note):
        score = sum(self.cargo) if self.locked == 3 else 0
        self.hand_scores[mover] = score
        note += f" Player {mover} scores {score}."
        if self.hand_scores[1 - mover] is None:
            self.player = 1 - mover
            self.start_turn()
            return self.observation(note), 0.0, False, False, {"player_id": self.player,
                                                               "legal_moves": self.legal_moves()}
        a, b = self.hand_scores
        if a != b:
            self.won[0 if a > b else 1] += 1
        self.log.append(f"hand {self.hand + 1}: {a}-{b}")
        self.hand += 1
        left = self.hands - self.hand
        if left == 0 or abs(self.won[0] - self.won[1]) > left:
            winner = None if self.won[0] == self.won[1] else (0 if self.won[0] > self.won[1] else 1)
            result = "a drawn match" if winner is None else f"player {winner} wins the match"
            return self.finish(mover, winner, f"{note} Hands {self.won[0]}-{self.won[1]}: {result}.")
        self.start_hand()
        return self.observation(f"{note} Hand {self.hand} ends {a}-{b}."), 0.0, False, False, {
            "player_id": self.player, "legal_moves": self.legal_moves()}

    def finish(self, mover, winner, text):
        self.done = True
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "success": winner == mover, "rewards": rewards, "winner": winner,
                "hands_won": list(self.won)}
        return text, rewards[mover], True, False, info

    def reject(self, mover, message, format_error):
        self.invalid[mover] = self.invalid[mover] + 1
        if self.invalid[mover] >= INVALID_LIMIT:
            obs, reward, term, trunc, info = self.finish(
                mover, 1 - mover, f"{message}\nPlayer {mover} made {INVALID_LIMIT} invalid moves in a row and forfeits.")
            info["action_is_valid"] = False
            if format_error:
                info["format_error"] = format_error
            return obs, reward, term, trunc, info
        info = {"player_id": mover, "action_is_valid": False, "legal_moves": self.legal_moves()}
        if format_error:
            info["format_error"] = format_error
        return self.observation(message), 0.0, False, False, info

    def step(self, action):
        if self.done:
            return "The match is over.", 0.0, True, False, {"player_id": self.player, "success": False,
                                                            "rewards": [0.0, 0.0], "winner": None}
        mover = self.player
        tokens = move_tokens(action, 40)
        if tokens == ["resign"]:
            return self.finish(mover, 1 - mover, f"Player {mover} resigns; player {1 - mover} wins the match.")
        if tokens not in (["roll"], ["roll", "low"], ["stop"]):
            return self.reject(mover, f"Invalid move {safe_echo(action)!r}: reply 'roll', 'roll low', 'stop' or "
                                      f"'resign'.", "expected roll, roll low, stop or resign")
        if tokens == ["roll", "low"] and self.locked < 3:
            return self.reject(mover, "'roll low' needs cargo: set aside ship, captain and crew first.", None)
        self.invalid[mover] = 0
        if tokens == ["stop"]:
            return self.end_turn(mover, f"Player {mover} stops.")
        self.roll(tokens == ["roll", "low"])
        note = f"Player {mover} rolls. {self.status()}"
        if self.rolls_left == 0:
            return self.end_turn(mover, note + " No rolls left.")
        return self.observation(note), 0.0, False, False, {"player_id": mover, "legal_moves": self.legal_moves()}

    def privileged_hint(self):
        other = self.hand_scores[1 - self.player]
        if self.locked < 3:
            return "Until ship, captain and crew are all set aside your cargo counts for nothing: keep rolling."
        if other is None:
            return "You play first this hand: an average reroll of both cargo dice is worth 7; weigh that against your cargo."
        return f"You only need to beat {other}; a tie wins nothing, and a sure win is worth more than a bigger cargo."

    def reference_action(self):
        if self.done:
            return "resign"
        if self.locked < 3:
            return "roll" if self.rolls_left else "stop"
        target = self.hand_scores[1 - self.player]
        a, b = self.cargo
        r = self.rolls_left
        stop = outcome_value(a + b, target)
        if not r:
            return "stop"
        both = sum(cargo_value(x, y, r - 1, target) for x in range(1, 7) for y in range(1, 7)) / 36.0
        low = sum(cargo_value(max(a, b), x, r - 1, target) for x in range(1, 7)) / 6.0
        best = max(stop, both, low)
        if stop >= best - 1e-12:
            return "stop"
        return "roll low" if low >= both else "roll"
