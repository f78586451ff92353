# shape: Kalah (mancala) self-play for both seats with extra turns and captures, where equal stores at the end are a legitimate draw.
"""Kalah (mancala) for two seats played by the same agent; an even seed total makes a tied store count a draw."""

from spade_domains.games.verify import move_integers, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "KalahMancalaDraw",
    "domain": "games",
    "description": (
        "Two-player Kalah: each seat sows the seeds of one of its pits counter-clockwise into the following pits "
        "and its own store (never the opponent's). A last seed in the own store earns another move; a last seed in "
        "an own empty pit captures the opposite pit. When a side is empty the rest go to their owner's store; "
        "more seeds wins and equal stores draw."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 200,
    "players": 2,
    "difficulty": {
        "pits": {"min": 3, "max": 6, "default": 4, "description": "pits per side"},
        "seeds": {"min": 2, "max": 4, "default": 3, "description": "seeds per pit at the start"},
        "opening_moves": {"min": 0, "max": 2, "default": 1, "description": "random sowings played before the agent"},
    },
    "grounding": "Kalah rules (Champion 1940s mancala variant): counter-clockwise sowing that skips the opponent's "
                 "store, extra move on a store landing, capture from an empty own pit, remaining seeds to their "
                 "owner at the end; a draw when both stores are equal.",
    "tags": ["two-player", "zero-sum", "mancala", "self-play", "draw"],
}

INVALID_LIMIT = 3


class KalahMancalaDraw:
    def __init__(self, pits=4, seeds=3, opening_moves=1):
        self.pits = pits
        self.seeds = seeds
        self.opening_moves = opening_moves
        self.board = []
        self.player = 0
        self.invalid = [0, 0]
        self.turns = 0
        self.tie_order = []
        self.done = False

    def reset(self, rng, options):
        p = self.pits
        self.board = [self.seeds] * p + [0] + [self.seeds] * p + [0]
        self.player = rng.randint(0, 1)
        self.invalid, self.turns, self.done = [0, 0], 0, False
        self.tie_order = rng.sample(range(p), p)
        for _ in range(self.opening_moves):
            if not self.sow(self.board, self.player, int(rng.choice(self.legal_moves())) - 1):
                self.player = 1 - self.player
        note = "Game start." if not self.opening_moves else f"Game start after {self.opening_moves} random sowing(s)."
        return self.observation(note), {"player_id": self.player, "legal_moves": self.legal_moves()}

    def store(self, seat):
        return self.pits if seat == 0 else 2 * self.pits + 1

    def pit_index(self, seat, k):
        return k if seat == 0 else self.pits + 1 + k

    def legal_moves(self):
        return [str(k + 1) for k in range(self.pits) if self.board[self.pit_index(self.player, k)] > 0]

    def sow(self, board, seat, k):
        """Sow pit k of seat on board in place; return True when the seat moves again."""
        i = self.pit_index(seat, k)
        hand, board[i] = board[i], 0
        skip = self.store(1 - seat)
        while hand:
            i = (i + 1) % len(board)
            if i != skip:
                board[i] = board[i] + 1
                hand = hand - 1
        own = range(self.pit_index(seat, 0), self.pit_index(seat, 0) + self.pits)
        if i in own and board[i] == 1:
            opposite = 2 * self.pits - i
            if board[opposite] > 0:
                board[self.store(seat)] = board[self.store(seat)] + board[opposite] + 1
                board[opposite], board[i] = 0, 0
        return i == self.store(seat)

    def side(self, board, seat):
        start = self.pit_index(seat, 0)
        return board[start: start + self.pits]

    def render(self):
        me, other = self.player, 1 - self.player
        mine, theirs = self.side(self.board, me), self.side(self.board, other)
        return (f"Opponent's pits (their 1..{self.pits}, right to left as seen from you): "
                f"{' '.join(str(v) for v in reversed(theirs))}   opponent's store: {self.board[self.store(other)]}\n"
                f"Your pits (1..{self.pits}, left to right): {' '.join(str(v) for v in mine)}   your store: "
                f"{self.board[self.store(me)]}\n(Your pit k faces the opponent's pit {self.pits}+1-k; sowing runs "
                f"left to right along your row, into your store, then along the opponent's row.)")

    def observation(self, note):
        return (f"{note}\nYou are player {self.player}.\n{self.render()}\nLegal pits: {', '.join(self.legal_moves())}. "
                f"Reply with one pit number.")

    def finish(self, winner, mover, text, extra=None):
        self.done = True
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "success": winner == mover, "rewards": rewards, "winner": winner}
        info.update(extra or {})
        return text, rewards[mover], True, False, info

    def step(self, action):
        mover = self.player
        if self.done:
            return "The game is over.", 0.0, True, False, {"player_id": mover, "success": False}
        self.turns = self.turns + 1
        numbers = move_integers(action if isinstance(action, str) else "", 40)
        pit = numbers[0] if len(numbers) == 1 else 0
        if not 1 <= pit <= self.pits or self.board[self.pit_index(mover, pit - 1)] == 0:
            self.invalid[mover] = self.invalid[mover] + 1
            why = (f"Pit {pit} is empty." if 1 <= pit <= self.pits else
                   f"Invalid move {safe_echo(action)!r}: reply with one pit number from 1 to {self.pits}.")
            extra = {"action_is_valid": False, "format_error": None if 1 <= pit <= self.pits else "expected one pit number"}
            if self.invalid[mover] >= INVALID_LIMIT:
                return self.finish(1 - mover, mover, f"{why} Player {mover} forfeits.", extra)
            extra.update({"player_id": mover, "legal_moves": self.legal_moves()})
            return self.observation(f"{why} ({INVALID_LIMIT - self.invalid[mover]} more invalid moves forfeit.)"), \
                0.0, False, False, extra
        self.invalid[mover] = 0
        again = self.sow(self.board, mover, pit - 1)
        note = f"Player {mover} sowed pit {pit}."
        if sum(self.side(self.board, 0)) == 0 or sum(self.side(self.board, 1)) == 0 or self.turns >= ENV_SPEC["max_turns"]:
            for seat in (0, 1):
                self.board[self.store(seat)] = self.board[self.store(seat)] + sum(self.side(self.board, seat))
                for k in range(self.pits):
                    self.board[self.pit_index(seat, k)] = 0
            a, b = self.board[self.store(0)], self.board[self.store(1)]
            winner = None if a == b else (0 if a > b else 1)
            result = "Draw." if winner is None else f"Player {winner} wins."
            return self.finish(winner, mover, f"{note} Game over: store 0 has {a}, store 1 has {b}. {result}")
        if again:
            note = f"{note} The last seed landed in the store: player {mover} moves again."
        else:
            self.player = 1 - mover
        return self.observation(note), 0.0, False, False, {"player_id": self.player, "legal_moves": self.legal_moves()}

    def privileged_hint(self):
        me = self.player
        mine = self.side(self.board, me)
        exact = any(mine[k] == self.pits - k for k in range(self.pits))
        lead = "Some pit of yours ends exactly in your store" if exact else "No pit of yours ends in your store now"
        return (f"{lead} (a store landing is a free extra move). A seed count that "
                f"ends in one of your empty pits captures the pit opposite; keep seeds in pits the opponent "
                f"could capture, or empty them first.")

    def reference_action(self):
        if self.done:
            return "1"
        me, best, choice = self.player, None, 1
        for k in self.tie_order:
            if self.board[self.pit_index(me, k)] == 0:
                continue
            board = list(self.board)
            again = self.sow(board, me, k)
            score = (board[self.store(me)] - board[self.store(1 - me)]) * 2 + (3 if again else 0)
            if best is None or score > best:
                best, choice = score, k + 1
        return str(choice)
