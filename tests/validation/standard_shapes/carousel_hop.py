# shape: one-player puzzle with a move limit (new mechanic: tokens slide or hop into the gap of a 7-slot ring)
"""Carousel hop puzzle: six numbered tokens and one gap on a ring of seven slots."""

from collections import deque

from spade_domains.games.verify import move_integers, safe_echo

ENV_SPEC = {
    "name": "CarouselHopPuzzle",
    "domain": "games",
    "description": (
        "Six numbered tokens and one empty gap sit on a ring of seven slots. A move sends one token into the gap: "
        "a token next to the gap slides in, a token two slots away hops over its neighbour into the gap. Put "
        "token k in slot k (the gap in slot 7) within the move limit."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "scramble_moves": {"min": 4, "max": 16, "default": 10,
                           "description": "random legal moves applied to the solved ring before play"},
        "spare_moves": {"min": 0, "max": 4, "default": 2,
                        "description": "moves allowed beyond the shortest solution"},
    },
    "grounding": "Sliding-token puzzles (15-puzzle family) on a ring, with a hop move as in peg and frog puzzles.",
    "tags": ["puzzle", "single-player", "planning", "move-limit"],
}

SLOTS = 7
GAP = 0
SOLVED_RING = (1, 2, 3, 4, 5, 6, GAP)
DISTANCES = {}  # pure cache: BFS distance of every reachable ring to the solved ring


def moves_from(ring):
    """(token, next ring) for every legal move from `ring`."""
    gap = ring.index(GAP)
    result = []
    for offset in (-2, -1, 1, 2):
        source = (gap + offset) % SLOTS
        nxt = list(ring)
        nxt[gap], nxt[source] = ring[source], GAP
        result.append((ring[source], tuple(nxt)))
    return result


def distance_table():
    if not DISTANCES:
        DISTANCES[SOLVED_RING] = 0
        queue = deque([SOLVED_RING])
        while queue:
            ring = queue.popleft()
            for _, nxt in moves_from(ring):
                if nxt not in DISTANCES:
                    DISTANCES[nxt] = DISTANCES[ring] + 1
                    queue.append(nxt)
    return DISTANCES


class CarouselHopPuzzle:
    def __init__(self, scramble_moves=10, spare_moves=2):
        self.scramble_moves = scramble_moves
        self.spare_moves = spare_moves
        self.ring = SOLVED_RING
        self.budget = 0
        self.used = 0
        self.turns = 0
        self.done = False
        self.preference = list(range(1, 7))

    def reset(self, rng, options):
        table = distance_table()
        ring = SOLVED_RING
        while True:
            ring = SOLVED_RING
            for _ in range(self.scramble_moves):
                ring = rng.choice(moves_from(ring))[1]
            if table[ring] >= 3:
                break
        self.ring = ring
        self.budget = table[ring] + self.spare_moves
        self.used = 0
        self.turns = 0
        self.done = False
        self.preference = rng.sample(list(range(1, 7)), 6)
        return self.observation("New puzzle."), {"legal_moves": self.legal_moves(), "moves_left": self.budget}

    def legal_moves(self):
        return [str(token) for token, _ in moves_from(self.ring)]

    def picture(self):
        return "  ".join(f"[{i + 1}:{'_' if t == GAP else t}]" for i, t in enumerate(self.ring))

    def observation(self, note):
        left = self.budget - self.used
        return (
            f"{note}\nRing (slot:token, slot 7 is next to slot 1; _ is the gap):\n{self.picture()}\n"
            f"Goal: token k in slot k for k = 1..6 and the gap in slot 7.\n"
            f"A token next to the gap slides into it; a token two slots from the gap hops over the token between "
            f"into it. Moves left: {left}.\n"
            f"Legal moves (reply with the token number): {', '.join(self.legal_moves())}"
        )

    def step(self, action):
        self.turns = self.turns + 1
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": self.ring == SOLVED_RING}
        out_of_turns = self.turns >= ENV_SPEC["max_turns"]
        numbers = move_integers(action, 60)
        if len(numbers) != 1 or not 1 <= numbers[0] <= 6:
            obs = self.observation(f"Could not read {safe_echo(action)!r}: reply with one token number from 1 to 6.")
            self.done = out_of_turns
            return obs, 0.0, False, out_of_turns, {"format_error": "expected one token number 1-6",
                                                   "action_is_valid": False, "legal_moves": self.legal_moves()}
        token = numbers[0]
        targets = dict(moves_from(self.ring))
        if token not in targets:
            obs = self.observation(f"Token {token} is more than two slots from the gap and cannot move.")
            self.done = out_of_turns
            return obs, 0.0, False, out_of_turns, {"action_is_valid": False, "legal_moves": self.legal_moves()}
        self.ring = targets[token]
        self.used = self.used + 1
        if self.ring == SOLVED_RING:
            self.done = True
            obs = f"Token {token} moved. Solved in {self.used} moves!\n{self.picture()}"
            return obs, 1.0, True, False, {"success": True, "moves_used": self.used}
        if self.used >= self.budget:
            self.done = True
            obs = f"Token {token} moved. No moves left; the ring is not solved.\n{self.picture()}"
            return obs, 0.0, True, False, {"success": False, "moves_used": self.used}
        self.done = out_of_turns
        obs = self.observation(f"Token {token} moved.")
        return obs, 0.0, False, out_of_turns, {"success": False, "legal_moves": self.legal_moves(),
                                               "moves_left": self.budget - self.used}

    def privileged_hint(self):
        table = distance_table()
        need = table.get(self.ring, 0)
        home = [str(t) for i, t in enumerate(self.ring) if t != GAP and t == i + 1]
        homes = ", ".join(home) if home else "none"
        return (f"The shortest solution from here takes {need} moves (you have {self.budget - self.used}). "
                f"A slide never changes the cyclic order of the tokens; only a hop swaps two neighbours in that "
                f"order, so fix the order with hops first. Tokens already home: {homes}.")

    def reference_action(self):
        table = distance_table()
        here = table.get(self.ring, 0)
        options = dict(moves_from(self.ring))
        for token in self.preference:
            if token in options and table.get(options[token], 99) == here - 1:
                return str(token)
        return str(self.preference[0])
