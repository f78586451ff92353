# expect: accepted
"""Twenty-one against the house: a short match of blackjack hands; finish ahead to win."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "BlackjackMatch",
    "domain": "games",
    "description": (
        "A match of blackjack hands against a dealer who draws to 16 and stands on 17. Before each hand choose "
        "'deal' (bet 1 chip) or 'sit out'; during a hand 'hit' or 'stand'. You start with 10 chips and win the "
        "match if you finish with more chips than you started with."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 120,
    "players": 1,
    "difficulty": {
        "hands": {"min": 3, "max": 10, "default": 6, "description": "hands in the match"},
    },
    "grounding": (
        "Blackjack (twenty-one): cards count their pip value, faces 10, an ace 1 or 11; going over 21 busts; the "
        "dealer follows a fixed rule (hit to 16, stand on 17), which is what gives basic strategy its shape."
    ),
    "tags": ["cards", "chance", "casino", "decision"],
}

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["s", "h", "d", "c"]
START = 10
INVALID_LIMIT = 3


def total(cards):
    value = 0
    aces = 0
    for card in cards:
        rank = card[:-1]
        if rank == "A":
            aces = aces + 1
            value = value + 1
        elif rank in ("J", "Q", "K"):
            value = value + 10
        else:
            value = value + int(rank)
    if aces and value + 10 <= 21:
        value = value + 10
    return value


def dealer_play(hand, shoe, pos):
    """The dealer's final hand and the next shoe position."""
    hand = list(hand)
    while total(hand) < 17:
        hand.append(shoe[pos])
        pos = pos + 1
    return hand, pos


class BlackjackMatch:
    def __init__(self, hands=6):
        self.n_hands = hands
        self.shoe = []
        self.pos = 0
        self.hand_no = 0
        self.chips = START
        self.phase = "bet"
        self.player = []
        self.dealer = []
        self.invalid = 0
        self.log = ""
        self.done = False

    def reset(self, rng, options):
        shoe = [r + s for r in RANKS for s in SUITS] * 3
        rng.shuffle(shoe)
        self.shoe = shoe
        self.pos = 0
        self.hand_no = 0
        self.chips = START
        self.phase = "bet"
        self.player = []
        self.dealer = []
        self.invalid = 0
        self.log = ""
        self.done = False
        return self.observation("Match start."), {"chips": self.chips}

    def draw(self):
        card = self.shoe[self.pos]
        self.pos = self.pos + 1
        return card

    def observation(self, note):
        head = (f"{note}\nBlackjack match: hand {min(self.hand_no + 1, self.n_hands)} of {self.n_hands}. Chips: "
                f"{self.chips} (you started with {START}; finish with more to win). The dealer hits to 16 and "
                f"stands on 17; aces count 1 or 11; a win pays 1 chip, a loss costs 1, a tie returns the bet.")
        if self.phase == "bet":
            return f"{head}\nReply 'deal' to play this hand (bet 1 chip) or 'sit out' to skip it."
        return (f"{head}\nYour cards: {' '.join(self.player)} (total {total(self.player)}). Dealer shows "
                f"{self.dealer[0]} and one face-down card.\nReply 'hit' or 'stand'.")

    def parse(self, action):
        tokens = move_tokens(action, 40)
        text = " ".join(tokens)
        if self.phase == "bet":
            if text in ("deal", "bet", "play", "bet 1", "deal me in"):
                return "deal"
            if text in ("sit out", "sitout", "skip", "pass"):
                return "sit out"
            return None
        if text in ("hit", "hit me", "draw"):
            return "hit"
        if text in ("stand", "stay", "stick"):
            return "stand"
        return None

    def end_hand(self, note):
        self.hand_no = self.hand_no + 1
        self.phase = "bet"
        if self.hand_no == self.n_hands:
            self.done = True
            won = self.chips > START
            verdict = "You win the match!" if won else "The house wins the match."
            return f"{note}\nMatch over: {self.chips} chips (started with {START}). {verdict}", \
                1.0 if won else 0.0, True, False, {"success": won, "chips": self.chips}
        return self.observation(note), 0.0, False, False, {"success": False, "chips": self.chips}

    def settle(self):
        mine = total(self.player)
        self.dealer, self.pos = dealer_play(self.dealer, self.shoe, self.pos)
        theirs = total(self.dealer)
        shown = f"Dealer has {' '.join(self.dealer)} ({theirs})."
        if theirs > 21 or mine > theirs:
            self.chips = self.chips + 1
            return self.end_hand(f"You stand on {mine}. {shown} You win the hand.")
        if mine < theirs:
            self.chips = self.chips - 1
            return self.end_hand(f"You stand on {mine}. {shown} You lose the hand.")
        return self.end_hand(f"You stand on {mine}. {shown} Push: the bet is returned.")

    def step(self, action):
        if self.done:
            raise RuntimeError("the match is over; reset the environment")
        move = self.parse(action)
        if move is None:
            self.invalid = self.invalid + 1
            expected = "'deal' or 'sit out'" if self.phase == "bet" else "'hit' or 'stand'"
            if self.invalid >= INVALID_LIMIT:
                self.done = True
                return (f"Invalid move {safe_echo(action)!r}. {INVALID_LIMIT} invalid replies in a row end the match: "
                        f"the house wins.", 0.0, True, False, {"success": False, "format_error": f"expected {expected}",
                                                             "chips": self.chips})
            return self.observation(f"Invalid move {safe_echo(action)!r}: reply {expected}."), 0.0, False, False, {
                "format_error": f"expected {expected}", "chips": self.chips}
        self.invalid = 0
        if self.phase == "bet":
            if move == "sit out":
                self.pos = self.pos + 4  # the round is dealt to the other seats at the table
                return self.end_hand("You sit this hand out.")
            self.player = [self.draw(), self.draw()]
            self.dealer = [self.draw(), self.draw()]
            self.phase = "play"
            if total(self.player) == 21:
                return self.settle()
            return self.observation("Cards are dealt."), 0.0, False, False, {"success": False, "chips": self.chips}
        if move == "hit":
            self.player.append(self.draw())
            if total(self.player) > 21:
                self.chips = self.chips - 1
                return self.end_hand(f"You draw {self.player[-1]}: {total(self.player)}, bust. You lose the hand.")
            if total(self.player) == 21:
                return self.settle()
            return self.observation(f"You draw {self.player[-1]}."), 0.0, False, False, {"success": False,
                                                                                           "chips": self.chips}
        return self.settle()

    # -- the scripted player (it may look at the shoe) -------------------------------------------------
    def plan_hits(self, start):
        """Number of hits that wins the hand dealt from shoe position `start`, or None when none does."""
        player = [self.shoe[start], self.shoe[start + 1]]
        dealer = [self.shoe[start + 2], self.shoe[start + 3]]
        pos = start + 4
        for hits in range(0, 6):
            hand = player + self.shoe[pos: pos + hits]
            if total(hand) > 21:
                return None
            final, _ = dealer_play(dealer, self.shoe, pos + hits)
            if total(final) > 21 or total(hand) > total(final):
                return hits
            if total(hand) == 21:
                return None
        return None

    def privileged_hint(self):
        if self.done:
            return "The match is over."
        if self.phase == "bet":
            return ("Each hand is roughly a coin flip tilted towards the house; once you are ahead, every extra "
                    "hand you play risks the lead.")
        return ("Basic strategy: always hit 11 or less; stand on 17 or more; with 12-16 stand when the dealer shows "
                "2-6 and hit when it shows 7 or higher.")

    def reference_action(self):
        if self.done:
            return "stand"
        if self.phase == "bet":
            return "deal" if self.plan_hits(self.pos) is not None else "sit out"
        start = self.pos - 4 - (len(self.player) - 2)
        plan = self.plan_hits(start)
        if plan is not None and len(self.player) - 2 < plan:
            return "hit"
        return "stand"
