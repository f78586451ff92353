"""Structural variants of long actions: a JSON tool call with its arguments changed, a program with a literal or an
operator changed, and generic wrong programs (a constant returned, an exception raised) in the reference's own
signature. A sound verifier rejects them; a string-level near miss (the action cut short) tells little about a
program or a call, a changed argument or constant does.

Nothing here runs the action: variants are built from the parsed text (``json``, ``ast``) on the host and sent to
the environment like any action.
"""

from __future__ import annotations

import ast
import copy
import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from spade_core import linear_re
from spade_core.validation.hint_leaks import ARGUMENT_KEYS, json_action
from spade_core.validation.precision import IMPLIED_MAX_PLACES, IMPLIED_MISS_UNITS, stated_bands
from spade_core.validation.probes import one_off
from spade_registry.syntax import parse_source

MAX_MUTANTS = 6
"""Single mutations tried per action (the first ones in reading order)."""

_FENCE = linear_re.compile(r"(?s)```[ \t]*[\w+-]*[ \t]*\n(.*?)```")


@dataclass(frozen=True)
class Variant:
    action: str
    what: str


@dataclass(frozen=True)
class Program:
    """Python source found in an action, and how to put other source in its place."""

    code: str
    before: str
    after: str

    def render(self, code: str) -> str:
        return f"{self.before}{code}{self.after}"


def program_in(action: str) -> Program | None:
    """The action's program: the first fenced block, else the whole action, when it parses and defines a function."""
    fenced = _FENCE.search(action)
    if fenced:
        program = Program(fenced.group(1), action[: fenced.start(1)], action[fenced.end(1):])
    else:
        program = Program(action, "", "")
    try:
        tree = parse_source(program.code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return program if any(isinstance(n, ast.FunctionDef) for n in ast.walk(tree)) else None


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


_SWAPS: dict[type, type] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                            ast.NotEq: ast.Eq, ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add,
                            ast.FloorDiv: ast.Mod, ast.Mod: ast.FloorDiv}


def _mutation_sites(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    skip = _docstrings(tree)
    sites: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in ast.walk(node))
        if isinstance(node, ast.Constant) and id(node) not in skip and not isinstance(node.value, (bytes, type(None))):
            if isinstance(node.value, (bool, int, float)) or (isinstance(node.value, str) and node.value):
                sites.append((node, f"the literal {node.value!r} changed"))
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in _SWAPS:
            sites.append((node, f"the comparison {type(node.ops[0]).__name__} swapped"))
        elif isinstance(node, ast.BinOp) and type(node.op) in _SWAPS:
            sites.append((node, f"the operator {type(node.op).__name__} swapped"))
    return sites


def _mutate(node: ast.AST) -> None:
    if isinstance(node, ast.Constant):
        value = node.value
        node.value = (not value if isinstance(value, bool) else value + 1 if isinstance(value, (int, float))
                      else value + "x")
    elif isinstance(node, ast.Compare):
        node.ops[0] = _SWAPS[type(node.ops[0])]()
    elif isinstance(node, ast.BinOp):
        node.op = _SWAPS[type(node.op)]()


def evenly(items: list[Any], limit: int) -> list[Any]:
    """``limit`` items spaced evenly over ``items`` (all of them when there are no more)."""
    if len(items) <= limit:
        return items
    return [items[round(i * (len(items) - 1) / max(limit - 1, 1))] for i in range(limit)]


def code_mutants(program: Program, limit: int = MAX_MUTANTS, *, spread: bool = False) -> list[Variant]:
    """The program with one literal or operator changed at a time: at the first ``limit`` sites in reading order, or
    with ``spread`` at ``limit`` sites spaced evenly over the whole program (its deeper branches too), half of them
    literals and these first (a changed literal rarely makes a loop endless, a swapped operator often does)."""
    tree = parse_source(program.code)
    sites = list(enumerate(_mutation_sites(tree)))
    if spread:
        literals = [site for site in sites if isinstance(site[1][0], ast.Constant)]
        others = [site for site in sites if site not in literals]
        shown = min(len(literals), max(limit - len(others), (limit + 1) // 2))
        sites = evenly(literals, shown) + evenly(others, limit - shown)
    out = []
    for index, (_, what) in sites[:limit]:
        mutated = copy.deepcopy(tree)
        node = _mutation_sites(mutated)[index][0]
        _mutate(node)
        try:
            out.append(Variant(program.render(ast.unparse(mutated) + "\n"), what))
        except (ValueError, RecursionError):
            continue
    return out


PROGRAM_PROBES = 2
"""Wrong programs (the last of :func:`wrong_programs`: first argument returned, an exception raised) played in place
of a program answer where a check needs episodes that run the task's hidden tests."""


def wrong_program_steps(actions: list[str]) -> list[list[str]]:
    """The reference's steps with its final program answer replaced by each of the last :data:`PROGRAM_PROBES` wrong
    programs (none where the last action is no program): a fixed-spec code task's seed and knobs may change only its
    hidden tests, which only a failing program's feedback shows."""
    program = program_in(actions[-1]) if actions else None
    if program is None:
        return []
    return [[*actions[:-1], variant.action] for variant in wrong_programs(program, [])[-PROGRAM_PROBES:]]


def near_miss_steps(actions: list[str], limit: int) -> list[list[str]]:
    """The reference's steps with its final program answer replaced by each of ``limit`` single changes of it (a
    literal or an operator, spread over the program; none where the last action is no program)."""
    program = program_in(actions[-1]) if actions else None
    if program is None:
        return []
    return [[*actions[:-1], mutant.action] for mutant in code_mutants(program, limit, spread=True)]


SIZE_LIMITS = (24, 64)
"""Input sizes (characters of the arguments' repr) past which :func:`size_limited` programs answer None."""


def size_limited(actions: list[str], limit: int) -> list[str] | None:
    """The reference's steps with its final program answering None whenever a top-level function's arguments
    (their repr) run past ``limit`` characters, right below it (None where the last action is no program, or has no
    top-level function): a knob that sets only the size or depth of a code task's hidden tests changes how many
    such a program passes."""
    program = program_in(actions[-1]) if actions else None
    if program is None:
        return None
    names = [n.name for n in parse_source(program.code).body if isinstance(n, ast.FunctionDef)]
    if not names:
        return None
    wrappers = "".join(f"\n\nspade_whole_{name} = {name}\n\n\ndef {name}(*args, **kwargs):\n"
                       f"    if len(repr(args)) + len(repr(kwargs)) > {limit}:\n        return None\n"
                       f"    return spade_whole_{name}(*args, **kwargs)\n" for name in names)
    return [*actions[:-1], program.render(program.code.rstrip("\n") + wrappers)]


def wrong_programs(program: Program, observation_values: list[str]) -> list[Variant]:
    """Every function of the program with its body replaced: constants of common types (0 first: the cheap wrong
    answer; True and False next, so that a few tries in turn cover a predicate's both results), a value the task
    shows (the first test's expected value, typically), its first argument, an exception (last)."""
    tree = parse_source(program.code)
    bodies: list[tuple[str, str]] = [(v, f"every function returning {v}") for v in
                                      ("0", "True", "False", "None", "''", "[]")]
    bodies += [(repr(_literal(v)), f"every function returning {v!r}, a value the task shows")
               for v in observation_values[:1]]
    bodies.append(("__first__", "every function returning its first argument"))
    out = []
    for body, what in bodies:
        mutated = copy.deepcopy(tree)
        for node in ast.walk(mutated):
            if isinstance(node, ast.FunctionDef):
                args = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
                text = f"return {args[0] if args else 'None'}" if body == "__first__" else f"return {body}"
                node.body = parse_source(text).body
        out.append(Variant(program.render(ast.unparse(mutated) + "\n"), what))
    mutated = copy.deepcopy(tree)
    for node in ast.walk(mutated):
        if isinstance(node, ast.FunctionDef):
            node.body = parse_source("raise ValueError('not implemented')").body
    out.append(Variant(program.render(ast.unparse(mutated) + "\n"), "every function raising an exception"))
    return out


_ANY_ORDER = linear_re.compile(
    r"(?i)\b(?:any order|no particular order|order (?:does not|doesn't|do not|don't|is not|isn't) (?:matter|important|"
    r"relevant|checked)|unordered|order is irrelevant|regardless of order|either order)\b")


def _functions(program: Program) -> list[ast.FunctionDef]:
    return [n for n in getattr(parse_source(program.code), "body", []) if isinstance(n, ast.FunctionDef)]


def _wrapped(program: Program, functions: list[ast.FunctionDef], returned: str, what: str,
             after: tuple[str, ...] = ()) -> Variant | None:
    """The program with each top-level function wrapped: it calls the function as written, keeps its value as
    ``result``, runs the statements ``after`` (one level indented) and returns the expression ``returned`` instead
    (None where that does not parse)."""
    lines = [program.code.rstrip(), ""]
    for function in functions:
        original = f"{function.name}_as_written"
        lines += [f"{original} = {function.name}", "",
                  f"def {function.name}(*args, **kwargs):",
                  f"    result = {original}(*args, **kwargs)",
                  *(f"    {line}" for line in after),
                  f"    return {returned}", ""]
    return _parsed_variant(program, lines, what)


def _parsed_variant(program: Program, lines: list[str], what: str) -> Variant | None:
    """The program's place filled with ``lines``, where they parse (None otherwise)."""
    code = "\n".join(lines)
    try:
        parse_source(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return Variant(program.render(code), what)


def reordered_results(program: Program, text: str) -> Variant | None:
    """The reference program with every top-level function's list result reversed: right items in the wrong order,
    which a task that shows an ordered list result (an example whose value lists two or more different items) must
    fail. None where ``text`` says the order does not matter, or shows no such example."""
    functions = _functions(program)
    if _ANY_ORDER.search(text[:MAX_EXAMPLE_TEXT]) or not functions:
        return None
    ordered = [value for _, value in shown_examples(text, {f.name for f in functions})
               if isinstance(value, ast.List) and len({ast.dump(item) for item in value.elts}) >= 2]
    if not ordered:
        return None
    return _wrapped(program, functions, "result[::-1] if isinstance(result, list) else result",
                    "the reference program with its list results reversed")


def hollow_results(program: Program) -> Variant | None:
    """The reference program with every top-level function's result that is a list of containers (groups, a
    partition, rows) returned as as many empty containers, and every other result as None: tests that check the
    shape of a grouping (k groups, equal sums) and not that it uses the given items pass it."""
    functions = _functions(program)
    if not functions:
        return None
    return _wrapped(program, functions, "[type(item)() for item in result] if isinstance(result, list) and result and "
                    "all(isinstance(item, (list, tuple, set, dict)) for item in result) else None",
                    "the reference program with its groups emptied (as many empty lists as it returns)")


def emptied_inputs(program: Program) -> Variant | None:
    """The reference program with every top-level function emptying the lists, dicts and sets it was given after it
    runs, and returning an empty value of its result's type (None for a result that is no container): tests that
    check the result against the arguments as the call left them (the same objects) pass it; tests that check it
    against the instance's own values fail it."""
    functions = _functions(program)
    if not functions:
        return None
    return _wrapped(program, functions, "type(result)() if isinstance(result, (list, dict, set, tuple, str)) else None",
                    "the reference program emptying the lists it is given and returning an empty result",
                    after=("for given in list(args) + list(kwargs.values()):",
                           "    if isinstance(given, (list, dict, set)):",
                           "        given.clear()"))


STANDIN_ERROR = "RuntimeError"
"""The exception a program raises in place of the one the task names (no subclass of the builtin ones tasks name)."""
_ERROR_NAME = linear_re.compile(r"\b([A-Z][A-Za-z]*(?:Error|Exception))\b")


def other_errors(program: Program, text: str) -> Variant | None:
    """The reference program with each exception it raises by a name the task's text names (``raise ValueError``
    where the task says "raise ValueError") raising :data:`STANDIN_ERROR` instead: tests that accept any exception
    where the task promises one type pass it. None where no raise of a named exception is found."""
    named = set(_ERROR_NAME.findall(text[:MAX_EXAMPLE_TEXT])) - {STANDIN_ERROR}
    tree = parse_source(program.code)
    if not named:
        return None
    changed = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Name) and target.id in named:
                target.id = STANDIN_ERROR
                changed += 1
    if not changed:
        return None
    return _parsed_variant(program, [ast.unparse(tree)], f"the reference program raising {STANDIN_ERROR} where the "
                           "task names another exception")


_SIGNIFICANT = linear_re.compile(r"(?i)significant")


def shifted_results(program: Program, text: str) -> Variant | None:
    """The reference program with every top-level function's float result moved by ten units of the finest decimal
    place its shown examples use (``== 2013.61``: 0.10 more), as short decimals with nothing stated are judged
    (:mod:`~spade_core.validation.precision`). None where the examples show no float of 1 to 3 places (or a
    non-numeric result), or ``text`` states a tolerance or speaks of significant figures."""
    functions, shown = _functions(program), text[:MAX_EXAMPLE_TEXT]
    if not functions or _SIGNIFICANT.search(shown) or stated_bands(shown, Fraction(1)):
        return None
    values = [ast.unparse(value).lstrip("-") for _, value in shown_examples(text, {f.name for f in functions})]
    if not values or not all(_PLAIN_NUMBER.fullmatch(v) for v in values):
        return None
    places = max((len(v.split(".")[1]) for v in values if "." in v), default=0)
    if not 1 <= places <= IMPLIED_MAX_PLACES:
        return None
    return _wrapped(program, functions,
                    f"round(result + {IMPLIED_MISS_UNITS} * 10 ** -{places}, {places}) if isinstance(result, float) "
                    "else result",
                    f"the reference program with its float results moved by {IMPLIED_MISS_UNITS} units of their "
                    "last decimal place")


def _last_place(value: ast.expr) -> float:
    """One unit of the last decimal place a shown float is written to (``1234.57`` -> 0.01): a result that close
    meets the example as shown (a program rounding one place finer does); 0 for anything else."""
    text = ast.unparse(value).lstrip("-")
    if isinstance(value, (ast.Constant, ast.UnaryOp)) and _PLAIN_NUMBER.fullmatch(text) and "." in text:
        return 10.0 ** -len(text.split(".")[1])
    return 0.0


def example_breaking(program: Program, mutant: Variant, text: str) -> Variant | None:
    """A program that is ``mutant`` where the mutant gets one of the examples ``text`` shows wrong that the reference
    gets right, and otherwise has every top-level function return None: it passes the task's tests only where they
    pass a program that breaks the task's own examples (hidden tests that never reach a branch the examples do).
    The examples are judged at import, once with the reference's functions and once with the mutant's; a float
    meets a shown one within a unit of its last written place. None where
    the text shows no example of the program's functions, or the mutant holds no program."""
    functions, changed = _functions(program), program_in(mutant.action)
    examples = shown_examples(text, {f.name for f in functions})
    if not examples or changed is None:
        return None
    table = ", ".join(f"(lambda: {ast.unparse(call)}, {ast.unparse(value)}, {_last_place(value)!r})"
                      for call, value in examples)
    lines = [program.code.rstrip(), "", "", "def spade_examples_right():", "    right = []",
             f"    for call, value, place in [{table}]:", "        try:", "            got = call()",
             "            if isinstance(got, (int, float)) and isinstance(value, float):",
             "                right.append(abs(got - value) <= place)", "            else:",
             "                right.append(got == value)",
             "        except Exception:", "            right.append(False)", "    return right", "", "",
             "spade_reference_right = spade_examples_right()", "", changed.code.rstrip(), "", "",
             "spade_mutant_right = spade_examples_right()",
             "if not any(r and not m for r, m in zip(spade_reference_right, spade_mutant_right)):"]
    for function in functions:
        lines += [f"    def {function.name}(*args, **kwargs):", "        return None", ""]
    return _parsed_variant(program, lines, f"{mutant.what}, which gets a shown example wrong")


_PLAIN_NUMBER = linear_re.compile(r"[0-9]+(?:\.[0-9]+)?")


def wrong_answer(answer: str) -> str | None:
    """A well-formed wrong answer in ``answer``'s form, cheap to check: for a program, the program with every function
    returning 0 (a changed number could loop until the task's time limit on every test); else the answer one off
    (:func:`~spade_core.validation.probes.one_off`)."""
    program = program_in(answer)
    if program is not None:
        return wrong_programs(program, [])[0].action
    wrong = one_off(answer)
    return wrong if wrong != answer else None


MAX_EXAMPLES = 40
"""Shown examples a memorising program answers at most."""
MAX_EXAMPLE_TEXT = 20_000
"""Characters of a text searched for examples."""
_ARROWS = ("==", "->", "=>", "returns", "gives", "is")


def _closing(text: str, open_at: int) -> int | None:
    """The index of the parenthesis closing the one at ``open_at`` (quotes respected), else None."""
    depth, quote, i = 0, "", open_at
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _example_call(text: str, names: set[str]) -> ast.Call | None:
    """``text`` as a call of one of ``names`` (a top-level function of the program), else None."""
    try:
        node = parse_source(text.strip(), mode="eval").body  # type: ignore[attr-defined]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names \
            and not any(isinstance(a, ast.Starred) for a in node.args) and all(k.arg for k in node.keywords):
        return node
    return None


MAX_VALUE_CUTS = 8
"""``;`` positions an example's value is cut at, at most (one parse each)."""


def _value(text: str) -> ast.expr | None:
    """The expression ``text`` starts with: all of it, else up to one of its first :data:`MAX_VALUE_CUTS` ``;``
    (examples listed in one line; a ``;`` inside a string leaves an unterminated prefix, which does not parse)."""
    semicolons = [i for i, ch in enumerate(text) if ch == ";"][:MAX_VALUE_CUTS]
    for cut in [len(text), *semicolons]:
        piece = text[:cut].strip().rstrip(".,;")
        if not piece:
            continue
        try:
            return parse_source(piece, mode="eval").body  # type: ignore[attr-defined]
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def _calls_in(line: str, names: set[str]) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of every call of one of ``names`` written in ``line``."""
    found = []
    for name in names:
        at = line.find(name + "(")
        while at != -1 and len(found) < MAX_EXAMPLES:
            if at == 0 or not (line[at - 1].isalnum() or line[at - 1] in "_."):
                end = _closing(line, at + len(name))
                if end is not None:
                    found.append((at, end + 1, name))
            at = line.find(name + "(", at + 1)
    return sorted(found)


def shown_examples(text: str, names: set[str]) -> list[tuple[ast.Call, ast.expr]]:
    """The input/output examples a text shows for the functions ``names``, wherever they stand in a line (after
    "FAILED:", "assert", a bullet, or several to a line separated by ``;``): ``f(x) == y``, ``f(x) -> y``,
    ``f(x) returns y``, or a doctest (``>>> f(x)`` then the value on the next line)."""
    lines = text[:MAX_EXAMPLE_TEXT].splitlines()
    out: list[tuple[ast.Call, ast.expr]] = []
    for i, line in enumerate(lines):
        for start, end, _ in _calls_in(line, names):
            call = _example_call(line[start:end], names)
            if call is None:
                continue
            rest = line[end:].lstrip()
            arrow = next((a for a in _ARROWS if rest.startswith(a) and not (
                a.isalpha() and rest[len(a):len(a) + 1].isalnum())), None)
            value = None
            if arrow is not None:
                value = _value(rest[len(arrow):])
            elif not rest and line.lstrip().startswith(">>>") and i + 1 < len(lines):
                value = _value(lines[i + 1])
            if value is not None:
                out.append((call, value))
        if len(out) >= MAX_EXAMPLES:
            break
    return out[:MAX_EXAMPLES]


OTHERWISE = {"none": "None", "echo": "(list(args) + list(kwargs.values()) + [None])[0]", "zero": "0"}
"""What a memorising program returns for a call it was not shown: None; its first argument (echoing passes hidden
tests whose inputs need no change); 0 (what :func:`wrong_answer`'s failed try returned, so the tests that try passed,
which its feedback need not list, pass again)."""


def memorising(program: Program, text: str, echo: bool = False, *, otherwise: str | None = None) -> Variant | None:
    """A program that knows only the examples ``text`` shows: each top-level function answers the shown calls with
    their shown values and otherwise returns None, or with ``echo`` its first argument, or what ``otherwise`` names in
    :data:`OTHERWISE` (the hard-coded solution an agent trained on the examples' reward finds). None when the text
    shows no example of the program's functions."""
    tree = parse_source(program.code)
    names = {n.name for n in getattr(tree, "body", []) if isinstance(n, ast.FunctionDef)}
    examples = shown_examples(text, names)
    if not examples:
        return None
    lines = []
    for name in sorted(names):
        mine = [(call, value) for call, value in examples if call.func.id == name]  # type: ignore[attr-defined]
        table = ", ".join(f"(({''.join(ast.unparse(a) + ', ' for a in call.args)}), "
                          f"{{{', '.join(f'{k.arg!r}: {ast.unparse(k.value)}' for k in call.keywords)}}}, "
                          f"{ast.unparse(value)})" for call, value in mine)
        fallback = OTHERWISE[otherwise or ("echo" if echo else "none")]
        lines += [f"def {name}(*args, **kwargs):", f"    for shown, named, value in [{table}]:",
                  "        if list(args) == list(shown) and kwargs == named:", "            return value",
                  f"    return {fallback}", ""]
    kind = otherwise or ("echo" if echo else "none")
    what = f"a program that only answers the {len(examples)} examples shown" + {
        "none": "", "echo": ", else echoes its input", "zero": ", else returns 0"}[kind]
    return _parsed_variant(program, lines, what)


def _literal(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


# -- JSON tool calls --------------------------------------------------------------------------------------------


def _bumped(text: str) -> str:
    """Every run of ASCII digits in ``text`` one more, as wide as it was (``room 09, 3 beds`` -> ``room 10, 4
    beds``; a run of more than 18 digits gets its last digit changed): a changed text argument also names other
    numbers, so a check that reads the number out of the text (an answer ``3`` or ``3 accounts``) sees a wrong one,
    not the right one with a letter added."""
    out, done = [], 0
    for start, end in _digit_runs(text):
        run = text[start:end]
        out += [text[done:start], str(int(run) + 1).zfill(len(run)) if len(run) <= 18 else
                run[:-1] + str((int(run[-1]) + 1) % 10)]
        done = end
    return "".join([*out, text[done:]])


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 + 1
    if isinstance(value, str):
        return _bumped(value)[::-1] + "x" if value else "x"
    if isinstance(value, list):
        return value[:-1] if value else ["x"]
    if isinstance(value, dict):
        return {k: _changed(v) for k, v in value.items()} if value else {"x": 1}
    return "x"


TOOL_KEYS = ("name", "tool", "function")
"""Where a JSON tool call names its tool (the arguments are every other key where it keeps no ``ARGUMENT_KEYS``)."""


@dataclass(frozen=True)
class JsonCall:
    """A JSON tool call found in an action, and how to send the same call with other arguments."""

    action: str
    data: dict[str, Any]
    key: str | None
    arguments: dict[str, Any]

    @property
    def tool_key(self) -> str | None:
        """The key naming the tool (None where no ``TOOL_KEYS`` key holds a text)."""
        return next((k for k in TOOL_KEYS if isinstance(self.data.get(k), str)), None)

    @property
    def tool(self) -> str:
        return self.data[self.tool_key] if self.tool_key else ""

    def calling(self, tool: str) -> str:
        """The same call, with the same arguments, of another tool."""
        data = {**self.data, self.tool_key or TOOL_KEYS[0]: tool}
        return JsonCall(self.action, data, self.key, self.arguments).render(self.arguments)

    def bare(self, tool: str) -> str:
        """A call of ``tool`` with no arguments, in this call's form."""
        data = {k: v for k, v in self.data.items() if k in TOOL_KEYS or k == self.key}
        return JsonCall(self.action, {**data, self.tool_key or TOOL_KEYS[0]: tool}, self.key, {}).render({})

    def render(self, arguments: dict[str, Any]) -> str:
        action = self.action
        start, end = (0, len(action)) if action.strip().startswith(("{", "[")) else \
            (action.find("{"), action.rfind("}") + 1)
        whole = {**self.data, self.key: arguments} if self.key else \
            {**{k: v for k, v in self.data.items() if k in TOOL_KEYS}, **arguments}
        return action[:start] + json.dumps(whole) + action[end:]


def typed(value: str, like: Any) -> Any:
    """``value`` (a shown text) as the type of the argument it replaces: a number for a number, where it reads as
    one; else the text."""
    if isinstance(like, (int, float)) and not isinstance(like, bool):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if isinstance(like, int) and number.is_integer() else number
    return value


def json_call(action: str) -> JsonCall | None:
    """The action's JSON tool call (None when it holds no JSON object)."""
    data = json_action(action)
    if not isinstance(data, dict):
        return None
    key = next((k for k in ARGUMENT_KEYS if isinstance(data.get(k), dict)), None)
    arguments = data[key] if key else {k: v for k, v in data.items() if k not in TOOL_KEYS}
    return JsonCall(action, data, key, arguments)


LISTED_AROUND = 30
"""How far below and above the right number :func:`listing_mutants` lists."""


_DIGITS = linear_re.compile(r"[0-9]+")


def _digit_runs(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each run of ASCII digits in ``text``."""
    return [match.span() for match in _DIGITS.finditer(text)]


def listing_mutants(action: str) -> list[Variant]:
    """For each text argument of a JSON call holding one whole number (``"3"``, ``"3 accounts"``): the call with that
    number replaced by every whole number from :data:`LISTED_AROUND` below it to as far above, the right one in the
    middle and never first or last (``"0 1 2 4 ... 3 ... 33"``). A check that accepts the text when any number in it is
    right passes it; one that reads the answer's number (its first, its last, the only one) does not."""
    call = json_call(action)
    if call is None:
        return []
    out = []
    for name, value in list(call.arguments.items())[:MAX_MUTANTS]:
        runs = _digit_runs(value) if isinstance(value, str) else []
        if len(runs) != 1 or runs[0][1] - runs[0][0] > 9:
            continue
        (start, end), right = runs[0], int(value[runs[0][0]:runs[0][1]])
        others = [n for n in range(max(0, right - LISTED_AROUND), right + LISTED_AROUND + 1) if n != right]
        listed = [*others[: len(others) // 2], right, *others[len(others) // 2:]]
        text = value[:start] + " ".join(map(str, listed)) + value[end:]
        out.append(Variant(call.render({**call.arguments, name: text}), f"the call with {name!r} listing the whole "
                           f"numbers {listed[0]} to {max(listed)}, {right} among them"))
    return out


def json_mutants(action: str) -> tuple[list[Variant], Variant | None]:
    """One variant per argument of a JSON call (each changed alone) and one with every argument changed at once
    (None when the action holds no JSON object with arguments)."""
    call = json_call(action)
    if call is None or not call.arguments:
        return [], None
    singles = [Variant(call.render({**call.arguments, name: _changed(value)}), f"the call with argument {name!r} "
                       "changed") for name, value in list(call.arguments.items())[:MAX_MUTANTS]]
    every = Variant(call.render({name: _changed(value) for name, value in call.arguments.items()}),
                    "the call with every argument changed")
    return singles, every
