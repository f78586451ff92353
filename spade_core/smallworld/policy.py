"""The small world's policy: the tiny local model (BPE + 2-layer Llama), taught the formats before self-play.

A model trained from nothing emits random tokens: it would never write a design program or a one-letter reply, and
self-play would see no signal at all. The embedded and capable models know formats from pre-training; the tiny
policy gets the same, and nothing more, from a short supervised pass on *format only*:

- designer turns: the design prompt followed by a program whose knob values are drawn uniformly (so the untrained
  designer samples the design space uniformly);
- agent turns: ``repeat b x`` is answered ``x``; ``relay b x`` with a random code letter, then ``x``; a guess or a
  whisper with a random letter; a hint that names a third is followed (the repeat's letter, the relay's code is in
  it), and a hint that names the answer doubled (``the answer doubled: qq xx``) is undone and copied, with the task
  shown or without it (the hint-only arm's prompt): copying, answering in a stated shape and reading a hint, which
  any instruction-tuned model can do.

Nothing in it ties a band to its code, so what the agent learns about the codes it learns by self-play. The Chain
family's pass (``family="chain"``) is the same with its shapes: designer programs with a depth; a relay of depth d
answered with d random letters, then its letter (with a hint, the last of them one of the four letters it lists:
``one of e f g h``), and a hinted repeat (``copy the letter shown``) copied.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade_core.rollout.chat import ChatFormatter
from spade_core.rollout.specs import HINT_TEMPLATE, with_hint
from spade_core.smallworld.family import (
    ANSWER_HINT,
    BANDS,
    CHAIN_FAMILY,
    CHAIN_MODES,
    DEPTHS,
    DESCRIPTION,
    FAMILY,
    GUESS_HINT,
    LETTERS,
    MODES,
    REPEAT_HINT,
    THIRDS,
    Design,
    doubled,
    listed_hint,
    named_hint,
    relay_hint,
    third_letters,
    third_of,
)
from spade_core.smallworld.language import OPENING, design_reply, opening, render_design

DESIGNER_SYSTEM = "Design a relay environment: band 0-3, mode 0 repeat, 1 relay, 2 guess, 3 whisper, 4 leaky relay."
CHAIN_DESIGNER_SYSTEM = "Design a chain environment: band 0-3, mode 0 repeat, 1 relay, 2 guess, 3 whisper, depth 1-3."
DESIGNER_USER = "Write one design."
AGENT_SYSTEM_PROMPT = "{description}"
"""The agent's system prompt in the small world (the runner's ``system_prompt``): short prompts keep CPU runs fast."""
AGENT_HINT_PLACEMENT = "user"
"""The runner's ``hint_placement`` in the small world (the format pass builds its prompts the same way)."""


FORMAT_STEPS = {FAMILY: 1800, CHAIN_FAMILY: 10800}
"""Format-pass steps per family: enough for the policy to pass :mod:`spade_core.smallworld.format_check`."""
FORMAT_DECAY_FROM = {CHAIN_FAMILY: 0.7}
"""Per family, where the format pass's learning rate starts to fall (:attr:`PretrainConfig.decay_from`; absent:
constant)."""


@dataclass(frozen=True)
class PretrainConfig:
    """The format pass: ``steps`` optimiser steps on ``batch_size`` examples each."""

    steps: int = FORMAT_STEPS[FAMILY]
    batch_size: int = 32
    learning_rate: float = 3e-3
    seed: int = 0
    decay_from: float = 1.0
    """The share of ``steps`` after which the learning rate falls linearly to a tenth of itself at the last step
    (1.0: constant throughout)."""

    @classmethod
    def for_family(cls, family: str, *, steps: int | None = None, seed: int = 0) -> PretrainConfig:
        """The family's format pass (``steps``: another length, e.g. to measure what a shorter one teaches)."""
        return cls(steps=FORMAT_STEPS[family] if steps is None else steps, seed=seed,
                   decay_from=FORMAT_DECAY_FROM.get(family, 1.0))

    def rate_scale(self, step: int) -> float:
        """The learning rate at ``step`` as a share of ``learning_rate``."""
        start = self.decay_from * self.steps
        if step < start or self.steps - start < 1:
            return 1.0
        return 1.0 - 0.9 * (step - start) / (self.steps - start)


def designer_messages(family: str = FAMILY) -> list[dict[str, str]]:
    system = CHAIN_DESIGNER_SYSTEM if family == CHAIN_FAMILY else DESIGNER_SYSTEM
    return [{"role": "system", "content": system}, {"role": "user", "content": DESIGNER_USER}]


def designer_prompt_ids(tokenizer: Any, family: str = FAMILY) -> list[int]:
    """The designer's prompt: the chat template's opening, then the program's first lines (the model writes the
    knob assignments)."""
    return ChatFormatter(tokenizer).first_prompt(designer_messages(family)) + list(
        tokenizer.encode(opening(family), add_special_tokens=False))


def agent_prompt_ids(tokenizer: Any, observation: str, hint: str | None, *, hint_only: bool = False) -> list[int]:
    """The agent's first prompt exactly as the episode runner builds it (``AGENT_HINT_PLACEMENT``; ``hint_only``:
    the hint without the observation)."""
    system = AGENT_SYSTEM_PROMPT.format(role="agent", description=DESCRIPTION, env_id="").strip()
    content = observation if hint is None else with_hint(observation, HINT_TEMPLATE.format(hint=hint),
                                                         AGENT_HINT_PLACEMENT, hint_only=hint_only)
    return ChatFormatter(tokenizer).first_prompt([{"role": "system", "content": system},
                                                   {"role": "user", "content": content}])


def reply_ids(tokenizer: Any, text: str) -> list[int]:
    """A reply's token ids as the policy writes it: the text's tokens, then the end of the turn (the format pass's
    replies, and a designer program written for the designer: ``WorldConfig.edit_share``)."""
    return list(tokenizer.encode(text, add_special_tokens=False)) + [int(tokenizer.eos_token_id)]


class _Encoder:
    """Prompt and reply ids, each distinct text encoded once (rendering a chat template is the slow part)."""

    def __init__(self, tokenizer: Any, family: str = FAMILY) -> None:
        self.tokenizer = tokenizer
        self.designer = designer_prompt_ids(tokenizer, family)
        self.prompts: dict[tuple[str, str | None, bool], list[int]] = {}
        self.replies: dict[str, list[int]] = {}

    def agent(self, observation: str, hint: str | None, *, hint_only: bool = False) -> list[int]:
        key = (observation, hint, hint_only)
        if key not in self.prompts:
            self.prompts[key] = agent_prompt_ids(self.tokenizer, observation, hint, hint_only=hint_only)
        return self.prompts[key]

    def reply(self, text: str) -> list[int]:
        if text not in self.replies:
            self.replies[text] = reply_ids(self.tokenizer, text)
        return self.replies[text]


def _format_example(enc: _Encoder, rng: random.Random, stage: int) -> tuple[list[int], list[int]]:
    """One supervised example, shaped as the environments answer and hint: a repeat is answered with its letter; a
    relay with a random code letter, then its letter; a guess or a whisper with a random letter; a hint names the
    third of the letter it speaks of (the repeat's answer, the relay's code), or the whole answer doubled, which is
    copied (with the task or alone). Codes and guesses are random, so nothing ties a band to its code. Reading takes
    a tiny model longest, so the pass goes in stages: copies (from the task or from a doubled hint) and designer
    programs, then relays beside them, then everything, guesses and hints alone that name no answer included."""
    draw = rng.random()
    if draw < 0.15:
        return enc.designer, enc.reply(design_reply(Design(rng.randrange(BANDS), rng.randrange(len(MODES)))))
    band, start, third = rng.randrange(BANDS), rng.choice(LETTERS), rng.randrange(len(THIRDS))
    number, letter = rng.randint(1000, 1099), rng.choice(LETTERS)
    if 0.4 <= draw < 0.52:  # a doubled answer in the hint is undone and copied, with the task or alone
        if rng.random() < 0.5:
            hint = ANSWER_HINT + doubled(letter) if stage < 2 or rng.random() < 0.6 else None
            return enc.agent(f"whisper {band} {number}", hint), enc.reply(letter)
        answer = rng.choice([letter, f"{rng.choice(LETTERS)} {letter}"])
        return enc.agent("", ANSWER_HINT + doubled(answer), hint_only=True), enc.reply(answer)
    hint = named_hint(third) if stage > 0 and rng.random() < 0.5 else None
    if stage == 0 or draw < 0.4:
        hint = hint and named_hint(third_of(start))
        return enc.agent(f"repeat {band} {start}", hint), enc.reply(start)
    if stage == 1 or draw < 0.84:
        code = rng.choice(third_letters(third) if hint else LETTERS)
        if hint and rng.random() < 0.3:  # a leaky relay's hint: the answer, doubled
            hint = ANSWER_HINT + doubled(f"{code} {start}")
        return enc.agent(f"relay {band} {start}", hint), enc.reply(f"{code} {start}")
    if draw < 0.92:
        hint = GUESS_HINT if rng.random() < 0.5 else None
        return enc.agent(f"guess {band} {number}", hint), enc.reply(letter)
    # a hint alone that names no answer (a third, the guess's rule) gives a letter and nothing more
    return enc.agent("", rng.choice([named_hint(third), GUESS_HINT]), hint_only=True), enc.reply(letter)


def _chain_example(enc: _Encoder, rng: random.Random, stage: int) -> tuple[list[int], list[int]]:
    """:func:`_format_example` for the Chain family: a depth in every observation, and a relay of depth d answered
    with d random letters, then its letter (hinted: the last of them one of the letters the hint lists), and a hinted
    repeat copied (hinted as the world hints it, or with its letter's third listed: a pass whose lists never hold the
    letter to copy did not learn to read them; README, "The chain world")."""
    draw = rng.random()
    if draw < 0.15:
        return enc.designer, enc.reply(design_reply(Design(rng.randrange(BANDS), rng.randrange(len(CHAIN_MODES)),
                                                             rng.randint(1, DEPTHS), CHAIN_FAMILY)))
    band, depth, start, third = rng.randrange(BANDS), rng.randint(1, DEPTHS), rng.choice(LETTERS), rng.randrange(3)
    number, letter, shown = rng.randint(1000, 1099), rng.choice(LETTERS), f"{band} {depth}"
    if 0.4 <= draw < 0.52:  # a doubled answer in the hint is undone and copied, with the task or alone
        if rng.random() < 0.5:
            hint = ANSWER_HINT + doubled(letter) if stage < 2 or rng.random() < 0.6 else None
            return enc.agent(f"whisper {shown} {number}", hint), enc.reply(letter)
        answer = " ".join(rng.choice(LETTERS) for _ in range(rng.randint(1, DEPTHS + 1)))
        return enc.agent("", ANSWER_HINT + doubled(answer), hint_only=True), enc.reply(answer)
    hint = listed_hint(third) if stage > 0 and rng.random() < 0.5 else None
    if stage == 0 or draw < 0.4:
        # hinted as the world hints a repeat, or with its letter's third listed (read as a relay's list is read)
        hint = hint and (REPEAT_HINT if rng.random() < 0.5 else listed_hint(third_of(start)))
        return enc.agent(f"repeat {shown} {start}", hint), enc.reply(start)
    if stage == 1 or draw < 0.84:
        links = [rng.choice(LETTERS) for _ in range(depth - 1)]
        links.append(rng.choice(third_letters(third) if hint else LETTERS))
        return enc.agent(f"relay {shown} {start}", hint), enc.reply(" ".join([*links, start]))
    if draw < 0.92:
        hint = GUESS_HINT if rng.random() < 0.5 else None
        return enc.agent(f"guess {shown} {number}", hint), enc.reply(letter)
    return enc.agent("", rng.choice([listed_hint(third), GUESS_HINT]), hint_only=True), enc.reply(letter)


def pretrain_formats(model: Any, tokenizer: Any, config: PretrainConfig | None = None,
                     family: str = FAMILY) -> dict[str, float]:
    """Supervised next-token training on completions only (prompt tokens carry no loss); returns the last loss."""
    import torch

    config = config or PretrainConfig()
    rng = random.Random(config.seed)
    torch.manual_seed(config.seed)
    optimiser = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    pad = int(tokenizer.pad_token_id)
    model.train()
    loss_value = float("nan")
    encoder = _Encoder(tokenizer, family)
    example = _chain_example if family == CHAIN_FAMILY else _format_example
    for step in range(config.steps):
        stage = min(2, 3 * step // config.steps)
        for group in optimiser.param_groups:
            group["lr"] = config.learning_rate * config.rate_scale(step)
        batch = [example(encoder, rng, stage) for _ in range(config.batch_size)]
        width = max(len(p) + len(c) for p, c in batch)
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        labels = torch.full((len(batch), width), -100, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, (prompt, completion) in enumerate(batch):
            seq = prompt + completion
            ids[row, :len(seq)] = torch.tensor(seq)
            mask[row, :len(seq)] = 1
            labels[row, len(prompt):len(seq)] = torch.tensor(completion)
        out = model(input_ids=ids, attention_mask=mask, labels=labels)
        optimiser.zero_grad(set_to_none=True)
        out.loss.backward()
        optimiser.step()
        loss_value = float(out.loss.item())
    model.eval()
    return {"loss": loss_value}


def tokenizer_text(family: str = FAMILY) -> str:
    """The text the policy's BPE is trained on: every prompt and reply form of the world, so its words are tokens
    (doubled letters stay out: ``hh`` is two ``h`` tokens, so undoing an exploit's hint is copying)."""
    rng = random.Random(0)
    lines = [DESIGNER_SYSTEM, DESIGNER_USER, OPENING, DESCRIPTION, GUESS_HINT, ANSWER_HINT,
             "<|im_start|>system\n", "<|im_start|>user\n", "<|im_start|>assistant\n", "<|im_end|>\n"]
    for _ in range(200):
        lines.append(render_design(Design(rng.randrange(BANDS), rng.randrange(len(MODES)))))
        hint = HINT_TEMPLATE.format(hint=relay_hint(family, rng.randrange(len(THIRDS))))
        lines.append(f"{rng.choice(MODES)} {rng.randrange(BANDS)} {rng.choice(LETTERS)}\n\n{hint}")
        lines.append(f"{rng.choice(LETTERS)} {rng.choice(LETTERS)}")
    if family == CHAIN_FAMILY:
        lines += [CHAIN_DESIGNER_SYSTEM, REPEAT_HINT]
        for _ in range(200):
            lines.append(render_design(Design(rng.randrange(BANDS), rng.randrange(len(CHAIN_MODES)),
                                               rng.randint(1, DEPTHS), family)))
            hint = HINT_TEMPLATE.format(hint=listed_hint(rng.randrange(len(THIRDS))))
            lines.append(f"{rng.choice(CHAIN_MODES)} {rng.randrange(BANDS)} {rng.randint(1, DEPTHS)} "
                         f"{rng.choice(LETTERS)}\n\n{hint}")
            lines.append(" ".join(rng.choice(LETTERS) for _ in range(rng.randint(1, DEPTHS + 1))))
    return "\n".join(lines)


PINNED_KERNELS = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}
"""The CPU kernels the format pass runs with on x86-64 (a caller's own setting wins): AVX-512 and AMX machines round
a tiny model's training differently, and 1,800 steps of it turn that into a different policy (one that copies 36 of
48 letters where another copies all); pinned, the policy is a function of its seed, so the small world's figures
reproduce on every x86-64 machine."""
FORMAT_THREADS = 2
"""The torch threads the pinned format pass runs with: how a reduction is split depends on the count (one thread gives
another policy than two), so a fixed count keeps the policy the same on machines with more or fewer cores; two is
what the policies behind the tests and the README figures were built with."""


def build_policy(directory: str | Path, *, seed: int = 0, pretrain: PretrainConfig | None = None,
                 family: str = FAMILY) -> Path:
    """A tiny model taught ``family``'s formats, saved as a ``save_pretrained`` folder (reused if already there). On
    x86-64 the format pass runs in a child process with :data:`PINNED_KERNELS` and :data:`FORMAT_THREADS`."""
    path = Path(directory)
    done = path / "pretrained"
    if (done / "config.json").exists():
        return done
    config = pretrain or PretrainConfig.for_family(family, seed=seed)
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return _build(path, seed, config, family)
    env = {**os.environ, **{k: os.environ.get(k, v) for k, v in PINNED_KERNELS.items()}}
    subprocess.run([sys.executable, "-m", "spade_core.smallworld.policy", str(path), str(seed),
                    json.dumps(dataclasses.asdict(config)), family], env=env, check=True)
    return done


def _build(path: Path, seed: int, config: PretrainConfig, family: str) -> Path:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from spade_core.models.tiny import build_tiny_model

    done = path / "pretrained"
    base = build_tiny_model(path / "base", seed=seed, vocab_size=384, text=tokenizer_text(family))
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
    pretrain_formats(model, tokenizer, config, family)
    tmp = path / "pretrained.tmp"
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    tmp.rename(done)
    return done


if __name__ == "__main__":  # the pinned child of build_policy: DIRECTORY SEED CONFIG_JSON FAMILY
    import torch

    torch.set_num_threads(FORMAT_THREADS)
    _build(Path(sys.argv[1]), int(sys.argv[2]), PretrainConfig(**json.loads(sys.argv[3])), sys.argv[4])
