# expect: accepted
"""Hangman: guess a hidden word letter by letter before the lives run out."""

from spade_domains.games.verify import clean_move, safe_echo

ENV_SPEC = {
    "name": "GallowsWord",
    "domain": "games",
    "description": "Classic hangman over a fixed vocabulary of nautical words: guess one letter per turn (or the "
                   "whole word); every miss costs a life. Reveal the word before the lives run out.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "lives": {"min": 3, "max": 9, "default": 5, "description": "wrong guesses allowed before the game is lost"},
    },
    "grounding": "Hangman rules: a correct letter is revealed at every position; a wrong letter or a wrong whole-"
                 "word guess costs a life; the vocabulary is the sailing glossary listed in the rules.",
    "tags": ["word", "deduction", "single-player"],
}

WORDS = ["anchor", "ballast", "bowline", "bosun", "cabin", "capstan", "compass", "deck", "dinghy", "fathom",
         "galley", "gunwale", "halyard", "harbor", "helm", "hull", "jib", "keel", "knot", "lanyard", "lee", "mast",
         "mooring", "oar", "port", "quay", "rigging", "rudder", "sail", "schooner", "sextant", "sloop", "spar",
         "stern", "tack", "tiller", "transom", "wake", "winch", "yard", "bilge", "buoy", "cleat", "gale", "jetty",
         "ketch", "leeward", "starboard", "tide", "wharf"]
ALPHABET = "abcdefghijklmnopqrstuvwxyz"


class GallowsWord:
    def __init__(self, lives=5):
        self.lives = lives
        self.word = ""
        self.guessed = []
        self.left = lives
        self.done = False
        self.turn = 0

    def reset(self, rng, options):
        self.word = rng.choice(WORDS)
        self.guessed = []
        self.left = self.lives
        self.done = False
        self.turn = 0
        return self.observation("New game."), {}

    def mask(self):
        return " ".join(ch if ch in self.guessed else "_" for ch in self.word)

    def observation(self, note):
        wrong = [g for g in self.guessed if g not in self.word]
        hidden = sorted(set(self.word) - set(self.guessed))
        return (f"{note}\nWord ({len(self.word)} letters): {self.mask()}\nWrong letters: "
                f"{', '.join(wrong) or 'none'}; lives left: {self.left}\nStill hidden: {len(hidden)} distinct "
                f"letters\nThe word is one of: {', '.join(WORDS)}.\nReply with one letter, or the whole word.")

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False, "action_is_valid": False}
        self.turn = self.turn + 1
        obs, reward, terminated, truncated, info = self.play(action)
        if not terminated and self.turn >= ENV_SPEC["max_turns"]:
            self.done = True
            return f"{obs}\nOut of turns.", 0.0, False, True, info
        return obs, reward, terminated, truncated, info

    def play(self, action):
        move = clean_move(action, 40)
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False, "action_is_valid": False}
        if move is None or not move.isalpha():
            return (self.observation(f"Could not read {safe_echo(action)!r}: reply with one letter a-z or a word."),
                    0.0, False, False, {"format_error": "expected one letter or one word", "success": False})
        if len(move) == 1:
            if move in self.guessed:
                return (self.observation(f"You already tried '{move}'."), 0.0, False, False,
                        {"action_is_valid": False, "success": False})
            self.guessed.append(move)
            hit = move in self.word
            note = f"'{move}' is in the word." if hit else f"No '{move}' in the word."
        else:
            hit = move == self.word
            note = "That is the word." if hit else f"'{safe_echo(move)}' is not the word."
            if hit:
                self.guessed.extend(ch for ch in self.word if ch not in self.guessed)
        if not hit:
            self.left = self.left - 1
        if all(ch in self.guessed for ch in self.word):
            self.done = True
            return f"{note} Solved: {self.word}.", 1.0, True, False, {"success": True}
        if self.left <= 0:
            self.done = True
            return f"{note} Out of lives; the word was {self.word}.", 0.0, True, False, {"success": False}
        return self.observation(note), 0.0, False, False, {"success": False}

    def candidates(self):
        wrong = [g for g in self.guessed if g not in self.word]
        out = []
        for w in WORDS:
            if len(w) == len(self.word) and not any(ch in w for ch in wrong) and all(
                    (a == b) if b in self.guessed else (a not in self.guessed) for a, b in zip(w, self.word)):
                out.append(w)
        return out

    def privileged_hint(self):
        return (f"{len(self.candidates())} vocabulary words still fit the pattern and the misses; guess the letter "
                f"that most of them share.")

    def reference_action(self):
        cands = self.candidates()
        if len(cands) == 1 and not self.done:
            return cands[0]
        counts = {ch: sum(ch in w for w in cands) for ch in set(self.word) if ch not in self.guessed}
        if not counts:
            return "a"
        return max(sorted(counts), key=lambda ch: counts[ch])
