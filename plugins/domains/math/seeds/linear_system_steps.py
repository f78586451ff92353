"""Solve a square linear system step by step: the determinant, then each unknown (Cramer's rule)."""

from spade_domains.math.verify import answers_match, extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "LinearSystemSteps",
    "domain": "math",
    "description": (
        "A 2x2, 3x3 or 4x4 system of linear equations with an integer solution: give the determinant of the "
        "coefficient matrix, then each unknown in turn; a wrong unknown is answered with the residual it leaves."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "size": {"min": 2, "max": 4, "default": 3, "description": "number of equations and unknowns"},
    },
    "grounding": (
        "Linear algebra: Gaussian elimination and Cramer's rule (x_i = det(A_i) / det(A), A_i is A with column i "
        "replaced by the right-hand side); a system has a unique solution exactly when det(A) is non-zero."
    ),
    "tags": ["linear-algebra", "systems-of-equations", "determinant", "multi-step"],
}

ATTEMPTS = 3
VARIABLES = ["x", "y", "z", "w"]


def determinant(m):
    """Exact determinant by cofactor expansion (small matrices only)."""
    n = len(m)
    if n == 1:
        return m[0][0]
    if n == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    total = 0
    for j in range(n):
        minor = [row[:j] + row[j + 1:] for row in m[1:]]
        sign = -1 if j % 2 else 1
        total = total + sign * m[0][j] * determinant(minor)
    return total


def term(coef, name, first):
    if coef == 0:
        return ""
    sign = "-" if coef < 0 else ("" if first else "+")
    size = abs(coef)
    body = name if size == 1 else f"{size}{name}"
    return f"{sign} {body}".strip() if first else f" {sign} {body}"


class LinearSystemSteps:
    def __init__(self, size=3):
        self.size = size
        self.matrix = []
        self.rhs = []
        self.solution = []
        self.det = 1
        self.targets = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        n = self.size
        det = 0
        matrix = []
        while det == 0 or abs(det) > 400:
            matrix = [[rng.randint(-5, 6) for _ in range(n)] for _ in range(n)]
            det = determinant(matrix)
        solution = [rng.choice([-7, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 8]) for _ in range(n)]
        self.matrix = matrix
        self.solution = solution
        self.rhs = [sum(a * s for a, s in zip(row, solution)) for row in matrix]
        self.det = det
        self.targets = [det] + solution
        self.index = 0
        self.attempts = 0
        self.done = False
        lines = []
        for row, b in zip(matrix, self.rhs):
            text = ""
            for j in range(n):
                text = text + term(row[j], VARIABLES[j], text == "")
            lines.append(f"  {text or '0'} = {b}")
        obs = (
            "Solve the system\n" + "\n".join(lines) + f"\nFirst give det(A) of the coefficient matrix, then "
            f"{', '.join(VARIABLES[:n])} in order, each as \\boxed{{value}}; {ATTEMPTS} tries each.\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        if self.index == 0:
            return "Step 1: what is det(A)?"
        return f"Step {self.index + 1}: what is {VARIABLES[self.index - 1]}?"

    def step(self, action):
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None:
            obs = f"Reply with one number as \\boxed{{value}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected a number in \\boxed{}", "step": self.index}
        expected = self.targets[self.index]
        if answers_match(given, str(expected)):
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.targets)
            if self.index == len(self.targets):
                self.done = True
                return "Correct. System solved.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        if self.index == 0:
            note = f"{safe_echo(given)} is not det(A); expand along a row with cofactors (mind the signs)"
        else:
            j = self.index - 1
            trial = list(self.solution)
            trial[j] = value
            residual = [sum(a * s for a, s in zip(row, trial)) - b for row, b in zip(self.matrix, self.rhs)]
            worst = max(range(len(residual)), key=lambda i: abs(residual[i]))
            off = residual[worst]
            shown = str(off.numerator) if off.denominator == 1 else f"{off.numerator}/{off.denominator}"
            note = (
                f"{VARIABLES[j]} = {safe_echo(given)} is wrong: with the other unknowns at their true values, "
                f"equation {worst + 1} would be off by {shown}"
            )
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries; it was {expected}.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.index == 0:
            return "Expand the determinant along the row or column with the most zeros or smallest entries."
        return (
            "Cramer's rule: replace the unknown's column of the coefficient matrix by the right-hand side, take "
            "that determinant and divide by det(A)."
        )

    def reference_action(self):
        if self.done or not self.targets:
            return "\\boxed{0}"
        return f"\\boxed{{{self.targets[self.index]}}}"
