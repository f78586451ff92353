"""Does a small-world policy know the formats its format pass was meant to teach? Measured before any run.

A run on a policy that cannot answer in the stated shape measures nothing about a curriculum: no design gives any
signal, and every arm stays at zero. This check samples the policy (temperature 1, as the world samples it) on the
shapes of its family and reports, per shape, the share of replies that are right *in form*: a repeat copies its
letter, with its hint or without; a relay of depth d answers d + 1 letters ending with its letter; a hinted relay's
d-th letter lies in the third the hint names (Chain: one of the letters it lists). None of these needs the secret
chain: they are what any instruction-following model does.

A hinted link is asked for every third, each time with a shown letter from another third: a policy that copies the
shown letter into the link (what Relay's hinted repeats, whose hint names the shown letter's third, invite) is right
only when that letter happens to lie in the named third, so one draw of a letter and a third could pass or fail it
by luck; the share is the mean over the three thirds.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from spade_core.smallworld.family import (
    CHAIN_FAMILY,
    DEPTHS,
    LETTERS,
    THIRDS,
    relay_hint,
    repeat_hint,
    third_letters,
    third_of,
)
from spade_core.smallworld.policy import agent_prompt_ids

FORMAT_FLOOR = 0.9
"""The least share of well-formed replies per shape for a policy to be fit to measure a curriculum with."""


@dataclass(frozen=True)
class FormatReport:
    """Share of well-formed replies per shape (e.g. ``relay depth 2 hinted link``), and the floor they are held to."""

    shares: dict[str, float]
    samples: int
    floor: float = FORMAT_FLOOR

    @property
    def failing(self) -> dict[str, float]:
        return {shape: share for shape, share in self.shares.items() if share < self.floor}

    @property
    def fit(self) -> bool:
        return not self.failing

    def line(self) -> str:
        shown = ", ".join(f"{shape} {share:.2f}" for shape, share in self.shares.items())
        verdict = "fit" if self.fit else f"NOT fit (below {self.floor:.2f}: {', '.join(self.failing)})"
        return f"format check, {self.samples} samples per shape: {shown} -> {verdict}"


def _relay_form(reply: str, depth: int, letter: str) -> bool:
    words = reply.split()
    return len(words) == depth + 1 and words[-1] == letter and all(w in LETTERS and len(w) == 1 for w in words)


def _in_third(reply: str, depth: int, third: int) -> bool:
    words = reply.split()
    return len(words) == depth + 1 and words[depth - 1] in third_letters(third)


def _sampler(policy_dir: str | Path, samples: int, seed: int) -> Callable[[str, str | None], list[str]]:
    """``replies(observation, hint)``: ``samples`` replies of the policy saved at ``policy_dir``, sampled at
    temperature 1 as the world samples it."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(policy_dir)
    model = AutoModelForCausalLM.from_pretrained(policy_dir, dtype=torch.float32).eval()
    torch.manual_seed(seed)

    def replies(observation: str, hint: str | None) -> list[str]:
        ids = torch.tensor([agent_prompt_ids(tokenizer, observation, hint)] * samples)
        with torch.inference_mode():
            out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=True, temperature=1.0,
                                 top_p=1.0, top_k=0, max_new_tokens=12, pad_token_id=tokenizer.pad_token_id)
        return [tokenizer.decode(row[ids.shape[1]:], skip_special_tokens=True).strip() for row in out]

    return replies


def check_format(policy_dir: str | Path, family: str, *, samples: int = 64, seed: int = 0) -> FormatReport:
    """Sample ``samples`` replies per shape from the policy saved at ``policy_dir`` and score their form."""
    replies = _sampler(policy_dir, samples, seed)
    rng = random.Random(seed)
    shares: dict[str, float] = {}
    letter = rng.choice(LETTERS)
    repeat = f"repeat 1 1 {letter}" if family == CHAIN_FAMILY else f"repeat 1 {letter}"
    shares["repeat copy"] = _share(replies(repeat, None), lambda r: r == letter)
    shares["repeat hinted copy"] = _share(replies(repeat, repeat_hint(family, letter)), lambda r: r == letter)
    depths = range(1, DEPTHS + 1) if family == CHAIN_FAMILY else range(1, 2)
    for depth in depths:
        letter = rng.choice(LETTERS)
        shares[f"relay depth {depth} form"] = _share(replies(_relay(family, depth, letter), None),
                                                     lambda r, d=depth, x=letter: _relay_form(r, d, x))
        forms, links = [], []
        for third in range(len(THIRDS)):
            shown = rng.choice([x for x in LETTERS if third_of(x) != third])
            hinted = replies(_relay(family, depth, shown), relay_hint(family, third))
            forms.append(_share(hinted, lambda r, d=depth, x=shown: _relay_form(r, d, x)))
            links.append(_share(hinted, lambda r, d=depth, t=third: _in_third(r, d, t)))
        shares[f"relay depth {depth} hinted form"] = sum(forms) / len(forms)
        shares[f"relay depth {depth} hinted link"] = sum(links) / len(links)
    return FormatReport(shares=shares, samples=samples)


def _relay(family: str, depth: int, letter: str) -> str:
    return f"relay 1 {depth} {letter}" if family == CHAIN_FAMILY else f"relay 1 {letter}"


def _share(replies: list[str], good: Callable[[str], bool]) -> float:
    return sum(1 for reply in replies if good(reply)) / len(replies)
