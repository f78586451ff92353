# good (document without proper nouns): the quantities come from the document's recipes; the agent scales one
"""Scale a pie recipe from the document."""

ENV_SPEC = {
    "name": "PieRecipeScaling",
    "domain": "math",
    "description": "Scale one ingredient of a pie recipe to a number of pies; answer in grams or millilitres.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"max_pies": {"min": 2, "max": 9, "default": 6}},
    "grounding": "The document's recipe quantities for shortcrust and fillings.",
}

RECIPES = [
    ("flour for the shortcrust", 250, "grams"),
    ("cold butter for the shortcrust", 125, "grams"),
    ("iced water for the shortcrust", 60, "millilitres"),
    ("apples for a deep apple pie", 900, "grams"),
    ("sugar for a deep apple pie", 100, "grams"),
    ("pitted cherries for a cherry pie", 700, "grams"),
    ("sugar for a cherry pie", 150, "grams"),
    ("pumpkin puree for a pumpkin pie", 425, "grams"),
    ("milk for a pumpkin pie", 350, "millilitres"),
]


class PieRecipeScaling:
    def __init__(self, max_pies=6):
        self.max_pies = max_pies
        self.item = RECIPES[0]
        self.pies = 2
        self.left = 2

    def reset(self, rng, options):
        self.item = RECIPES[rng.randrange(len(RECIPES))]
        self.pies = rng.randint(2, self.max_pies)
        self.left = 2
        return (f"One pie needs the amount of {self.item[0]} given in the recipe. How many {self.item[2]} of it do "
                f"{self.pies} pies need? Answer as \\boxed{{N}}."), {}

    def step(self, action):
        text = action.strip()
        self.left = self.left - 1
        done = self.left <= 0
        if not (text.startswith("\\boxed{") and text.endswith("}") and text[7:-1].isdigit()):
            return "Answer as \\boxed{N}.", 0.0, done, False, {"success": False, "format_error": "no number"}
        if int(text[7:-1]) == self.item[1] * self.pies:
            return "Correct.", 1.0, True, False, {"success": True}
        return ("Wrong." if done else "Wrong; one more try."), 0.0, done, False, {"success": False}

    def privileged_hint(self):
        return f"Find the one-pie amount in the recipe and multiply it by {self.pies}."

    def reference_action(self):
        return f"\\boxed{{{self.item[1] * self.pies}}}"
