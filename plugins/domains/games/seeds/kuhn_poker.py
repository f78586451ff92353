"""Kuhn poker as a multi-hand match between two seats played by the same policy."""

from spade_domains.games.verify import move_tokens, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "KuhnPokerMatch",
    "domain": "games",
    "description": (
        "A match of Kuhn poker hands (one private card each, ante 1, one bet of 1): check, bet, call or fold. "
        "The seat with more chips after the last hand wins the match; three invalid moves in a row forfeit it."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 400,
    "players": 2,
    "difficulty": {
        "cards": {"min": 3, "max": 6, "default": 3,
                  "description": "ranks in the deck (3 is classic Kuhn poker; more ranks need finer thresholds)"},
        "hands": {"min": 20, "max": 120, "default": 60, "description": "hands in the match"},
    },
    "grounding": (
        "Kuhn poker (H. W. Kuhn, 1950): the smallest non-trivial poker game, solved analytically; its Nash "
        "equilibrium bets the best card, mixes bluffs with the worst card and is worth -1/18 per hand to the "
        "first player. Hands alternate who acts first (the first hand's opener is drawn at random)."
    ),
    "tags": ["two-player", "zero-sum", "imperfect-information", "poker", "self-play"],
}

ALL_RANKS = ["8", "9", "T", "J", "Q", "K"]
RANK_NAMES = {"8": "Eight", "9": "Nine", "T": "Ten", "J": "Jack", "Q": "Queen", "K": "King"}
MOVES = ["check", "bet", "call", "fold"]
INVALID_LIMIT = 3


class KuhnPokerMatch:
    def __init__(self, cards=3, hands=60):
        self.ranks = ALL_RANKS[len(ALL_RANKS) - cards:]
        self.n_hands = hands
        self.deals = []
        self.opener = 0
        self.hand = 0
        self.history = []
        self.chips = [0, 0]
        self.player = 0
        self.invalid = [0, 0]
        self.last_result = ""
        self.done = False

    def reset(self, rng, options):
        self.deals = [rng.sample(list(range(len(self.ranks))), 2) for _ in range(self.n_hands)]
        self.opener = rng.randint(0, 1)
        self.hand = 0
        self.history = []
        self.chips = [0, 0]
        self.player = self.opener
        self.invalid = [0, 0]
        self.last_result = ""
        self.done = False
        return self.observation("Match start."), {"player_id": self.player, "chips": list(self.chips),
                                                  "legal_moves": self.legal()}

    def first_to_act(self):
        return (self.hand + self.opener) % 2

    def facing_bet(self):
        return len(self.history) > 0 and self.history[-1] == "bet"

    def legal(self):
        return ["call", "fold"] if self.facing_bet() else ["check", "bet"]

    def card_name(self, index):
        rank = self.ranks[index]
        return f"{RANK_NAMES[rank]} ({rank})"

    def observation(self, note):
        p = self.player
        order = " < ".join(self.ranks)
        if self.history:
            acted = []
            seat = self.first_to_act()
            for move in self.history:
                acted.append(f"player {seat} {move}s")
                seat = 1 - seat
            so_far = "; ".join(acted)
        else:
            so_far = "nothing yet"
        pot = 2 + self.history.count("bet") + self.history.count("call")
        previous = f"\nLast hand: {self.last_result}" if self.last_result else ""
        return (
            f"{note}{previous}\nKuhn poker match, hand {self.hand + 1} of {self.n_hands}. Deck ranks: {order}. "
            f"You are player {p}; your opponent is player {1 - p}. Chips won so far: you {self.chips[p]:+d}, "
            f"opponent {self.chips[1 - p]:+d}.\nYour card: {self.card_name(self.deals[self.hand][p])}. Pot: {pot}. "
            f"This hand: {so_far}.\nLegal moves: {', '.join(self.legal())}."
        )

    def parse(self, action):
        tokens = move_tokens(action, 60)
        found = [t[:-1] if t[:-1] in MOVES else t for t in tokens if t in MOVES or t[:-1] in MOVES]
        if len(set(found)) != 1:
            return None
        return found[0]

    def finish_hand(self, winner, amount, showdown):
        self.chips[winner] = self.chips[winner] + amount
        self.chips[1 - winner] = self.chips[1 - winner] - amount
        cards = self.deals[self.hand]
        if showdown:
            self.last_result = (
                f"showdown, player 0 had {self.card_name(cards[0])}, player 1 had {self.card_name(cards[1])}; "
                f"player {winner} won {amount}."
            )
        else:
            self.last_result = f"player {1 - winner} folded; player {winner} won {amount}."
        self.hand = self.hand + 1
        self.history = []
        if self.hand == self.n_hands:
            self.done = True
            if self.chips[0] == self.chips[1]:
                winner = None
            else:
                winner = 0 if self.chips[0] > self.chips[1] else 1
            return winner, True
        self.player = self.first_to_act()
        return None, False

    def step(self, action):
        mover = self.player
        move = self.parse(action)
        if move is None or move not in self.legal():
            if move is None:
                message = f"Invalid move {safe_echo(action)!r}: reply with one of {', '.join(self.legal())}."
                error = "expected one of check, bet, call, fold"
            else:
                message = f"'{move}' is not legal now; legal moves: {', '.join(self.legal())}."
                error = None
            self.invalid[mover] = self.invalid[mover] + 1
            if self.invalid[mover] >= INVALID_LIMIT:
                self.done = True
                winner = 1 - mover
                rewards = zero_sum_rewards(winner)
                obs = f"{message}\nPlayer {mover} made {INVALID_LIMIT} invalid moves in a row and forfeits the match."
                info = {"player_id": mover, "success": False, "rewards": rewards, "winner": winner,
                        "format_error": error, "action_is_valid": False, "chips": list(self.chips)}
                return obs, rewards[mover], True, False, info
            left = INVALID_LIMIT - self.invalid[mover]
            obs = self.observation(f"{message} ({left} more invalid moves forfeit the match.)")
            return obs, 0.0, False, False, {"player_id": mover, "format_error": error, "action_is_valid": False,
                                            "legal_moves": self.legal(),
                                            "chips": list(self.chips)}
        self.invalid[mover] = 0
        self.history.append(move)
        cards = self.deals[self.hand]
        high = 0 if cards[0] > cards[1] else 1
        ended, winner = False, None
        if move == "fold":
            winner, ended = self.finish_hand(1 - mover, 1, False)
        elif move == "call":
            winner, ended = self.finish_hand(high, 2, True)
        elif move == "check" and len(self.history) == 2:
            winner, ended = self.finish_hand(high, 1, True)
        else:
            self.player = 1 - mover
        if ended:
            rewards = zero_sum_rewards(winner)
            result = "a draw" if winner is None else f"won by player {winner}"
            obs = (
                f"Last hand: {self.last_result}\nMatch over after {self.n_hands} hands: chips player 0 "
                f"{self.chips[0]:+d}, player 1 {self.chips[1]:+d}; the match is {result}."
            )
            info = {"player_id": mover, "success": winner == mover, "rewards": rewards, "winner": winner,
                    "chips": list(self.chips)}
            return obs, rewards[mover], True, False, info
        return self.observation(f"Player {mover} played {move}."), 0.0, False, False, {
            "player_id": self.player, "chips": list(self.chips), "legal_moves": self.legal()}

    def strength(self):
        card = self.deals[self.hand][self.player]
        return card / (len(self.ranks) - 1)

    def privileged_hint(self):
        if self.done:
            return "The match is over."
        s = self.strength()
        if s == 1:
            return "You hold the top rank: it wins every showdown, so build the pot."
        if s == 0:
            return "You hold the lowest rank: it loses every showdown; only a bluff can win this pot."
        return "Your card beats some ranks and loses to others; weigh the pot odds before putting in another chip."

    def reference_action(self):
        if self.done:
            return "check"
        s = self.strength()
        if self.facing_bet():
            return "call" if s >= 0.5 else "fold"
        # value-bet the top third, bluff with the bottom third, check the middle (the equilibrium's shape)
        return "bet" if s >= 0.66 or s < 0.34 else "check"
