"""Wordle-style word guessing with green/yellow/grey feedback over a fixed embedded word list."""

from spade_domains.games.verify import clean_move, safe_echo

ENV_SPEC = {
    "name": "WordleLike",
    "domain": "games",
    "description": (
        "Guess a secret five-letter English word. Each guess is scored letter by letter: G (right letter, right "
        "place), Y (in the word, elsewhere), . (not in the word, or no more copies). Limited guesses."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "guesses": {"min": 4, "max": 8, "default": 6, "description": "guesses allowed (fewer is harder)"},
        "hard_mode": {"min": 0, "max": 1, "default": 0,
                      "description": "1: every guess must reuse all revealed greens and yellows"},
    },
    "grounding": (
        "Wordle (J. Wardle, 2021) and its ancestor Mastermind: feedback marks exact-position matches first, then "
        "other occurrences up to the letter's count in the secret; a good guess splits the remaining candidate "
        "words as evenly as possible (information gain)."
    ),
    "tags": ["word", "deduction", "puzzle", "feedback"],
}

WORDS = """
    about above actor acute adopt after again agent agree ahead alarm album alert alike alive allow alone along
    alter amber angel anger angle angry apple apply arena argue arise armor array arrow aside asset audio avoid
    award aware badge baker basic beach beard beast begin being below bench berry birth black blade blame blank
    blast blend blind block blood bloom board boast bonus boost booth brain brake brand brave bread break brick
    bride brief bring broad brown brush build bunch burst cabin cable candy cargo carry catch cause chain chair
    chalk charm chart chase cheap check chess chest chief child chill civil claim class clean clear clerk click
    cliff climb clock close cloud coach coast coral count court cover craft crane crash cream crisp cross crowd
    crown curve cycle daily dance delay depth diary dirty doubt dozen draft drama dream dress drift drink drive
    eager early earth eight elbow elder empty enemy enjoy enter entry equal error event exact exist extra faith
    false fancy feast fence fever field fifth fight final flame flash fleet flock flood floor flour fluid focus
    force forge forth forum frame fresh front frost fruit funny ghost giant given glass globe glory glove grace
    grade grain grand grant grape grass great green greet grief grill group guard guess guest guide habit happy
    heart heavy hello honey horse hotel house human humor ideal image index inner input issue ivory jelly jewel
    joint judge juice knife knock label labor large laser later laugh layer learn lemon level light limit linen
    liver local logic loyal lucky lunar lunch magic major maple march match mayor medal metal meter minor model
    money month moral motor mount mouse mouth movie music nerve never night noble noise north novel nurse ocean
    offer often olive onion opera orbit order other outer owner paint panel paper party pasta patch peace pearl
    pedal phase phone photo piano piece pilot pitch pixel pizza place plain plane plant plate point polar porch
    pound power press price pride prime print prize proof proud pulse punch queen quick quiet quilt quota radio
    raise rally range rapid ratio reach react ready realm relax reply rider ridge rifle right rival river roast
    robot rocky round route royal rural salad sauce scale scene scent score scout screw sense serve seven shade
    shake shape share shark sharp sheep sheet shelf shell shift shine shirt shock shore short shout sight skill
    skirt sleep slice slide slope small smart smile smoke snack snake solar solid solve sound south space spare
    spark speak speed spell spend spice spine split spoon sport spray squad stack staff stage stair stamp stand
    start state steam steel stick still stock stone storm story stove straw strip study style sugar suite sunny
    super sweet swing sword table taste teach thank theme thick thing think third thumb tiger title toast today
    tooth topic torch total touch tough tower trace track trade trail train treat trend trial tribe trick truck
    truly trust truth tulip twist uncle under union unity upper urban usage usual valid value valve vapor video
    vital vivid vocal voice wagon waste watch water whale wheat wheel where while white whole woman world worry
    worth wound write young youth zebra
""".split()

LENGTH = 5


def feedback(guess, secret):
    """Wordle marks: G exact, Y elsewhere (up to the letter's remaining count), . otherwise."""
    marks = ["."] * LENGTH
    unmatched = {}
    for i in range(LENGTH):
        if guess[i] == secret[i]:
            marks[i] = "G"
        else:
            unmatched[secret[i]] = unmatched.get(secret[i], 0) + 1
    for i in range(LENGTH):
        if marks[i] != "G" and unmatched.get(guess[i], 0) > 0:
            marks[i] = "Y"
            unmatched[guess[i]] = unmatched[guess[i]] - 1
    return "".join(marks)


def hard_mode_problem(guess, history):
    """Why `guess` breaks hard mode (reuse every revealed green in place and every yellow), or None."""
    for past, marks in history:
        for i in range(LENGTH):
            if marks[i] == "G" and guess[i] != past[i]:
                return f"position {i + 1} must be {past[i].upper()}"
        for i in range(LENGTH):
            if marks[i] == "Y" and past[i] not in guess:
                return f"the guess must contain {past[i].upper()}"
    return None


class WordleLike:
    def __init__(self, guesses=6, hard_mode=0):
        self.max_guesses = guesses
        self.hard_mode = hard_mode == 1
        self.secret = WORDS[0]
        self.history = []
        self.pool = list(WORDS)
        self.opener = ""
        self.done = False

    def reset(self, rng, options):
        self.secret = rng.choice(WORDS)
        self.history = []
        self.pool = list(WORDS)
        self.done = False
        rules = " Hard mode: every guess must reuse all revealed G and Y letters." if self.hard_mode else ""
        obs = (
            f"Guess the secret five-letter English word in {self.max_guesses} guesses. Reply with one word. "
            f"Feedback per letter: G = right place, Y = in the word elsewhere, . = not in the word.{rules}"
        )
        return obs, {"guesses_left": self.max_guesses}

    def board(self):
        rows = [f"{past.upper()}  {marks}" for past, marks in self.history]
        absent = sorted(set(
            past[i] for past, marks in self.history for i in range(LENGTH)
            if marks[i] == "." and all(
                not (p2[j] == past[i] and m2[j] != ".") for p2, m2 in self.history for j in range(LENGTH))
        ))
        text = "\n".join(rows)
        if absent:
            text = f"{text}\nLetters not in the word: {' '.join(a.upper() for a in absent)}"
        return text

    def step(self, action):
        move = clean_move(action, 60)
        word = move.replace(" ", "") if move is not None else ""
        left = self.max_guesses - len(self.history)
        if len(word) != LENGTH or not word.isalpha() or not word.isascii():
            obs = f"{safe_echo(action)!r} is not a five-letter word. Reply with one word of five letters (A-Z)."
            if self.history:
                obs = f"{obs}\n{self.board()}"
            return obs, 0.0, False, False, {"format_error": "expected one five-letter word", "guesses_left": left}
        if self.hard_mode:
            problem = hard_mode_problem(word, self.history)
            if problem is not None:
                obs = f"Hard mode: {problem}. Guess not counted.\n{self.board()}"
                return obs, 0.0, False, False, {"action_is_valid": False, "guesses_left": left}
        marks = feedback(word, self.secret)
        self.history.append((word, marks))
        self.pool = [w for w in self.pool if feedback(word, w) == marks]
        left = left - 1
        if word == self.secret:
            self.done = True
            obs = f"{word.upper()}  {marks}\nSolved in {len(self.history)} guesses!"
            return obs, 1.0, True, False, {"success": True, "guesses_left": left}
        if left <= 0:
            self.done = True
            obs = f"{self.board()}\nOut of guesses. The word was {self.secret.upper()}."
            return obs, 0.0, True, False, {"success": False, "guesses_left": 0}
        obs = f"{self.board()}\n{left} guesses left."
        return obs, 0.0, False, False, {"success": False, "guesses_left": left}

    def privileged_hint(self):
        found = set(past[i] for past, marks in self.history for i in range(LENGTH) if marks[i] != ".")
        missing = [ch for ch in self.secret if ch not in found]
        vowels = len(set(ch for ch in self.secret if ch in "aeiou"))
        if missing:
            hint = f"One letter you have not found yet is {missing[-1].upper()}; the word has {vowels} distinct vowels."
        else:
            hint = "Every letter of the word is already marked G or Y somewhere; fix the positions."
        squashed = "".join(ch for ch in hint.lower() if ch.isalpha())
        if any(w in squashed for w in WORDS):
            hint = f"Letter {missing[-1].upper() if missing else '?'} matters; {vowels} distinct vowels."
        return hint

    def reference_action(self):
        if self.done:
            return self.secret
        pool = self.pool
        if not pool:
            return self.secret
        if not self.history and self.opener:
            return self.opener
        counts = {}
        for w in pool:
            for ch in set(w):
                counts[ch] = counts.get(ch, 0) + 1
        best = max(pool, key=lambda w: (sum(counts[ch] for ch in set(w)), w))
        if not self.history:
            self.opener = best
        return best
