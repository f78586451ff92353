"""``spade play``: play an environment in the terminal, actions from stdin (or the reference solver's)."""

from __future__ import annotations

import sys

import click
import gymnasium as gym

from spade_core.cli.consoles import console
from spade_core.cli.synced_store import synced_store
from spade_core.display import clean, echo, json_text, markup
from spade_core.gym_bridge import register_store


def _read_action(prompt: str, interactive: bool) -> str | None:
    """One action from stdin; a line ending in a backslash continues on the next line."""
    parts = []
    while True:
        if interactive:
            click.echo(prompt, nl=False)
        line = sys.stdin.readline()
        if not line:
            return "\n".join(parts) if parts else None
        line = line.rstrip("\n")
        if line.endswith("\\"):
            parts.append(line[:-1])
            continue
        parts.append(line)
        return "\n".join(parts)


@click.command("play")
@click.argument("env_id")
@click.option("--seed", type=int, default=None, help="Episode seed (same seed, same task).")
@click.option("--hint", is_flag=True, help="Show the privileged hint each turn.")
@click.option("--auto", is_flag=True, help="Let the reference solver play every seat (headless demo).")
@click.option("--knob", "knobs", multiple=True, metavar="NAME=VALUE", help="Difficulty knob, e.g. --knob digits=3.")
@click.pass_context
def play_command(ctx: click.Context, env_id: str, seed: int | None, hint: bool, auto: bool, knobs: tuple[str, ...]) -> None:
    """Play an environment in the terminal; actions come from stdin, one per line (scriptable)."""
    synced_store(ctx)
    register_store(ctx.obj["store"])
    name = env_id if "/" in env_id else f"spade/{env_id}"
    kwargs = {}
    for item in knobs:
        key, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r} must look like NAME=VALUE", param_hint="--knob")
        kwargs[key] = float(value) if "." in value else int(value)
    env = gym.make(name, **kwargs)
    spade_env = env.unwrapped
    players = spade_env.manifest.players
    interactive = sys.stdin.isatty() and not auto
    obs, info = env.reset(seed=seed)
    returns = [0.0] * players
    total_turns = 0
    while True:
        player = info.get("player_id", 0)
        console.rule(markup(f"turn {info.get('turn', 0)}" + (f" · player {player}" if players > 1 else "")))
        echo(obs)
        if hint:
            console.print(f"[cyan]hint:[/] {markup(spade_env.privileged_hint())}", highlight=False)
        if auto:
            action = spade_env.reference_action()
            echo(f"> {action}")
        else:
            action = _read_action(f"player {player}> " if players > 1 else "> ", interactive)
            if action is None:
                click.echo("(input ended before the episode did)")
                break
        obs, reward, terminated, truncated, info = env.step(action)
        total_turns += 1
        returns[player if players > 1 else 0] += float(reward)
        if info.get("format_error"):
            console.print(f"[yellow]format error:[/] {markup(info['format_error'])}", highlight=False)
        if terminated or truncated:
            console.rule("episode over")
            echo(obs)
            final = info.get("rewards", returns)
            summary = {"turns": total_turns, "success": info.get("success"), "terminated": terminated,
                       "truncated": truncated, "rewards": final}
            if info.get("sandbox_error") is not None:
                summary["error"] = clean(info["sandbox_error"])
            click.echo(json_text(summary))
            break
    env.close()
