"""Extraction of the module from a capable model's answer: prose around it, several blocks, fences inside string
literals, answers cut at the token limit; every domain's worked example survives the round trip and is accepted."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.designer.parsing import MAX_CLOSING_CANDIDATES, ExtractionError, extract_module
from spade_core.plugins import get_plugins
from spade_core.plugins.contributions import SeedEnvironment

WORKED = [(d.name, module) for d in get_plugins().collect_flat("spade_domains") for module in d.worked_examples]

# A module-level constant whose text holds a fenced block with bare fence lines: the hardest case for extraction.
FENCED_CONSTANT = '''

REPLY_FORMAT_NOTE = """Reply in one block, for example:
```python
def solve(text):
    return text
```
and nothing after it."""
'''


def answer(source: str) -> str:
    """How a capable model answers: prose, the module in a fenced block, prose and another block after it."""
    return ("Sure. I grounded the environment on the document and kept the hint free of the answer.\n\n"
            f"```python\n{source.rstrip()}\n```\n\n"
            "Notes: the difficulty knob changes the search space. To try it:\n\n"
            "```bash\nspade validate my_env.py\n```\n")


@pytest.mark.parametrize(("domain", "module"), WORKED, ids=[m.rsplit(".", 1)[-1] for _, m in WORKED])
def test_every_worked_example_survives_a_fenced_answer_and_is_accepted(domain: str, module: str) -> None:
    from spade_core.validation import validate_source

    source = SeedEnvironment(module).source().rstrip() + "\n" + FENCED_CONSTANT
    extracted = extract_module(answer(source))
    assert extracted.source == source.rstrip() + "\n" and extracted.how == "fenced"
    compile(extracted.source, module, "exec")
    report = validate_source(extracted.source, file=f"{module.rsplit('.', 1)[-1]}.py")
    assert report.accepted, report.repair_message()


def test_a_fence_inside_a_string_literal_does_not_end_the_block() -> None:
    source = ('ENV_SPEC = {"name": "X"}\n\nclass X:\n    def reference_action(self):\n'
              '        return "```python\\n" + "x = 1\\n" + "```"\n')
    assert extract_module(f"Here:\n```python\n{source}```\nDone.").source == source


def test_a_parsing_block_wins_over_a_longer_broken_one() -> None:
    good = 'ENV_SPEC = {"name": "Good"}\n\nclass Good:\n    def step(self, action):\n        return 1\n'
    broken = 'ENV_SPEC = {"name": "Broken"}\n\nclass Broken:\n    def step(self, action:\n' + "    # pad\n" * 40
    extracted = extract_module(f"First try:\n```python\n{broken}```\nFixed:\n```python\n{good}```\n")
    assert extracted.source == good and extracted.blocks_seen == 2


def test_tildes_and_longer_fences_follow_markdown() -> None:
    source = 'ENV_SPEC = {"name": "T"}\n\nclass T:\n    NOTE = """\n```\nshown\n```\n"""\n'
    assert extract_module(f"~~~python\n{source}~~~\n").source == source
    assert extract_module(f"````python\n{source}````\n").source == source


def test_an_answer_cut_at_the_token_limit_is_an_unterminated_block() -> None:
    module = 'ENV_SPEC = {"name": "C"}\n\nclass C:\n    def step(self, action):\n        return 1\n'
    extracted = extract_module(f"Here:\n```python\n{module}    def reset(self, rng")
    assert extracted.how == "unterminated-fence" and extracted.source.endswith("def reset(self, rng\n")
    # cut inside a string that holds a fence: nothing parses, the block is kept as written for the validator
    cut = 'ENV_SPEC = {"name": "C"}\n\nclass C:\n    NOTE = """text\n```\nmore'
    assert extract_module(f"Here:\n```python\n{cut}").source.startswith('ENV_SPEC = {"name": "C"}')


@pytest.mark.parametrize(("completion", "message"), [
    ("", "the completion is empty"),
    ("I cannot write code today.", "found no code"),
    ("```python\nprint('hi')\n```", "none defines ENV_SPEC"),
    ("```json\n{\"ENV_SPEC\": 1}\n```", "found no code"),
])
def test_says_what_it_found_when_there_is_no_module(completion: str, message: str) -> None:
    with pytest.raises(ExtractionError, match=message):
        extract_module(completion)


_LINE = st.sampled_from(["```", "```python", "~~~", "plain prose", "x = 1", "'''", '"""', "", "    ```", "#"])


@given(st.lists(_LINE, max_size=60))
def test_any_fence_soup_extracts_or_explains(lines: list[str]) -> None:
    completion = "ENV_SPEC = {}\nclass A:\n    pass\n" + "\n".join(lines)
    try:
        extracted = extract_module(completion)
    except ExtractionError as exc:
        assert str(exc)
    else:
        assert "ENV_SPEC" in extracted.source


def test_many_fence_lines_are_bounded_work() -> None:
    body = 'ENV_SPEC = {"name": "S"}\nclass S:\n    NOTE = """\n' + "```\nline\n" * 5000
    started = time.perf_counter()
    extract_module("```python\n" + body)
    assert time.perf_counter() - started < 5 and MAX_CLOSING_CANDIDATES <= 32
    started = time.perf_counter()
    with pytest.raises(ExtractionError, match="none defines ENV_SPEC"):
        extract_module("```\n" * 20_000)
    assert time.perf_counter() - started < 5


OLD_OPEN = __import__("re").compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[^\s`]*)[^`\n]*$")
"""The backtracking pattern the opening-fence scan replaced (a test reference only: never run on long text)."""


@given(st.text(st.sampled_from(" \t`~pythonx\u00a0\n"), max_size=14))
def test_the_opening_fence_scan_agrees_with_the_pattern_it_replaced(line: str) -> None:
    from spade_core.designer.parsing import opening_fence

    old = OLD_OPEN.match(line)
    assert opening_fence(line) == (None if old is None else (old.group("fence"), old.group("lang")))


def test_a_long_opening_fence_line_parses_in_linear_time() -> None:
    """One opening-fence line that ends in a backtick made the old pattern quadratic (0.25 s -> 5.3 s for 4.5x the
    length); at 20x that length the scan takes milliseconds."""
    line = "```" + "python" * 40_000 + "`"
    started = time.perf_counter()
    with pytest.raises(ExtractionError):
        extract_module(line + "\nnot code\n")
    assert time.perf_counter() - started < 2.0
