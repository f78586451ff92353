"""``SpadeEnv``: the trusted ``gymnasium.Env`` around every SPADE environment.

It owns the spaces, seeding and episode bookkeeping, and checks every value the inner environment returns
(Gymnasium's passive checker only warns). Strict episodes: ``step`` before ``reset`` or after the episode ended
raises :class:`EpisodeStateError` (``OrderEnforcing`` only guards the very first reset).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium as gym

from spade_core.contract.inner import HandleFactory, InnerEnvHandle, LocalInnerEnv
from spade_core.contract.spaces import FreeText
from spade_core.errors import ContractError, EpisodeStateError, SandboxError
from spade_registry.manifest import EnvManifest
from spade_registry.plain_json import first_non_json

HINT_OPTION = "hint"
"""``reset(options={HINT_OPTION: True})`` puts the privileged hint into ``info[HINT_OPTION]``; not passed to the inner
env."""
RESERVED_RESET_OPTIONS = (HINT_OPTION,)
LEGAL_MOVES_KEY = "legal_moves"
"""Optional ``info`` key of games: the moves the player to act may play now (a list of strings). Validation's random
legal players draw from it (seat-bias check); a game without it is played from the moves its observation offers."""

_SEED_BOUND = 2**63 - 1


class SpadeEnv(gym.Env[str, str]):
    """A SPADE environment as a real ``gymnasium.Env`` with text observations and actions.

    Standard ``info`` keys on every step: ``success`` (the verifier's verdict), ``format_error`` (``None`` or
    why the action could not be parsed), ``action_is_valid``, ``turn``, and ``player_id`` for multi-player games;
    games may add ``legal_moves`` (:data:`LEGAL_MOVES_KEY`).
    When the environment code fails mid-episode (sandbox timeout, crash, contract breach) the episode ends with
    ``truncated=True`` and the typed error in ``info["sandbox_error"]``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        manifest: EnvManifest,
        handle_factory: HandleFactory,
        *,
        knobs: Mapping[str, Any] | None = None,
        env_id: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.manifest = manifest
        self.env_id = env_id or manifest.name
        self.knobs = manifest.check_knobs(dict(knobs or {}), where=self.env_id)
        self.render_mode = render_mode
        self.observation_space = FreeText(manifest.max_obs_chars)
        self.action_space = FreeText(manifest.max_action_chars)
        self.reward_range = manifest.reward_range
        self._factory = handle_factory
        self._handle: InnerEnvHandle | None = None
        self._done = True
        self._started = False
        self._turn = 0
        self._last_obs = ""
        self.episode_seed: int | None = None
        self.last_error: BaseException | None = None

    # -- gymnasium API -------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        want_hint = bool(options.pop(HINT_OPTION, False))
        self.episode_seed = int(self.np_random.integers(0, _SEED_BOUND))
        handle = self._ensure_handle()
        raw = handle.reset(self.episode_seed, options)
        obs, info = self._check_reset(raw)
        self._done, self._started, self._turn = False, True, 0
        self._last_obs = obs
        self.last_error = None
        if want_hint:
            info[HINT_OPTION] = self.privileged_hint()
        return obs, info

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        if not self._started:
            raise EpisodeStateError(f"{self.env_id}: step() called before reset(); call env.reset() first")
        if self._done:
            raise EpisodeStateError(
                f"{self.env_id}: step() called after the episode ended (terminated or truncated); call env.reset()"
            )
        self._turn += 1
        problem = self._action_problem(action)
        if problem is not None:
            info = {"format_error": problem, "action_is_valid": False}
            # a single-turn episode ends on its one step, even when the action is refused before the environment
            return self._finish(self._last_obs, self._neutral_reward(), self.manifest.single_turn, False, info)
        try:
            raw = self._ensure_handle().step(action)
            obs, reward, terminated, truncated, info = self._check_step(raw)
        except (SandboxError, ContractError) as err:
            return self._fail(err)
        return self._finish(obs, reward, terminated, truncated, info)

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._last_obs
        return None

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        super().close()

    # -- SPADE extras -------------------------------------------------------------------------------------
    @property
    def turn(self) -> int:
        return self._turn

    @property
    def done(self) -> bool:
        return self._done

    def privileged_hint(self) -> str:
        """The hint for the current episode (shown to the agent only in hinted rollouts)."""
        self._require_episode("privileged_hint")
        hint = self._ensure_handle().privileged_hint()
        if not isinstance(hint, str):
            raise ContractError(f"{self.env_id}: privileged_hint() must return str, got {type(hint).__name__}")
        if len(hint) > self.manifest.max_obs_chars:
            raise ContractError(f"{self.env_id}: privileged_hint() is {len(hint)} chars; max is {self.manifest.max_obs_chars}")
        return hint

    def reference_action(self) -> str:
        """The reference solver's next action for the current state."""
        self._require_episode("reference_action")
        action = self._ensure_handle().reference_action()
        if not isinstance(action, str):
            raise ContractError(f"{self.env_id}: reference_action() must return str, got {type(action).__name__}")
        return action

    def trusted_instance(self) -> Any:
        """The inner environment object of a trusted (bundled, in-process) environment, for inspection in tests
        and tools; designer-written environments live in a sandbox worker and have none here."""
        handle = self._ensure_handle()
        if not isinstance(handle, LocalInnerEnv):
            raise ContractError(f"{self.env_id}: runs in the sandbox; its state is not reachable from this process "
                                "(only bundled seed environments run in-process)")
        return handle.instance

    def spawn(self, **knobs: Any) -> SpadeEnv:
        """A fresh, independent instance of the same environment (same knobs unless overridden)."""
        merged = {**self.knobs, **knobs}
        return SpadeEnv(self.manifest, self._factory, knobs=merged, env_id=self.env_id, render_mode=self.render_mode)

    # -- checks ---------------------------------------------------------------------------------------------
    def _ensure_handle(self) -> InnerEnvHandle:
        if self._handle is None:
            self._handle = self._factory(self.knobs)
        return self._handle

    def _require_episode(self, what: str) -> None:
        if not self._started:
            raise EpisodeStateError(f"{self.env_id}: {what}() needs a running episode; call env.reset() first")

    def _action_problem(self, action: Any) -> str | None:
        if not isinstance(action, str):
            return f"action must be a string, got {type(action).__name__}"
        if len(action) > self.manifest.max_action_chars:
            return f"action is {len(action)} characters; the limit is {self.manifest.max_action_chars}"
        return None

    def _check_reset(self, raw: Any) -> tuple[str, dict[str, Any]]:
        if not (isinstance(raw, tuple) and len(raw) == 2):
            raise ContractError(f"{self.env_id}: reset() must return (observation, info), got {_describe(raw)}")
        obs, info = raw
        self._check_obs(obs, "reset")
        info = self._check_info(info, "reset")
        if self.manifest.players > 1:
            self._check_player(info, "reset")
        info.setdefault("turn", 0)
        return obs, info

    def _check_step(self, raw: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if not (isinstance(raw, tuple) and len(raw) == 5):
            raise ContractError(
                f"{self.env_id}: step() must return (observation, reward, terminated, truncated, info), got {_describe(raw)}"
            )
        obs, reward, terminated, truncated, info = raw
        self._check_obs(obs, "step")
        if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not math.isfinite(reward):
            raise ContractError(f"{self.env_id}: step() reward must be a finite number, got {reward!r}")
        low, high = self.manifest.reward_range
        if not low - 1e-9 <= reward <= high + 1e-9:
            raise ContractError(f"{self.env_id}: step() reward {reward!r} is outside the manifest's reward_range [{low}, {high}]")
        for name, flag in (("terminated", terminated), ("truncated", truncated)):
            if not isinstance(flag, bool):
                raise ContractError(f"{self.env_id}: step() {name} must be a bool, got {flag!r}")
        info = self._check_info(info, "step")
        if self.manifest.players > 1 and not (terminated or truncated):
            self._check_player(info, "step")
        return obs, float(reward), terminated, truncated, info

    def _check_obs(self, obs: Any, where: str) -> None:
        if not isinstance(obs, str):
            raise ContractError(f"{self.env_id}: {where}() observation must be str, got {type(obs).__name__}")
        if len(obs) > self.manifest.max_obs_chars:
            raise ContractError(
                f"{self.env_id}: {where}() observation is {len(obs)} chars; max_obs_chars is {self.manifest.max_obs_chars}"
            )

    def _check_info(self, info: Any, where: str) -> dict[str, Any]:
        if not isinstance(info, dict):
            raise ContractError(f"{self.env_id}: {where}() info must be a dict, got {type(info).__name__}")
        bad = first_non_json(info, "info")
        if bad is not None:
            raise ContractError(f"{self.env_id}: {where}() info must hold only JSON data (str, number, bool, None, list, dict); {bad}")
        if "success" in info and not isinstance(info["success"], bool):
            raise ContractError(f"{self.env_id}: {where}() info['success'] must be a bool, got {info['success']!r}")
        fe = info.get("format_error")
        if fe is not None and not isinstance(fe, str):
            raise ContractError(f"{self.env_id}: {where}() info['format_error'] must be a str or None, got {fe!r}")
        legal = info.get(LEGAL_MOVES_KEY)
        if legal is not None and not (isinstance(legal, list) and all(isinstance(m, str) for m in legal)):
            raise ContractError(f"{self.env_id}: {where}() info[{LEGAL_MOVES_KEY!r}] must be a list of move strings, "
                                f"got {_describe(legal)}")
        return dict(info)

    def _check_player(self, info: dict[str, Any], where: str) -> None:
        pid = info.get("player_id")
        if isinstance(pid, bool) or not isinstance(pid, int) or not 0 <= pid < self.manifest.players:
            raise ContractError(
                f"{self.env_id}: {where}() info['player_id'] must be the acting player in [0, {self.manifest.players}), got {pid!r}"
            )

    def _finish(self, obs: str, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]):
        info.setdefault("success", False)
        info.setdefault("format_error", None)
        info.setdefault("action_is_valid", info["format_error"] is None)
        info["turn"] = self._turn
        if self.manifest.single_turn and not terminated and not truncated:
            return self._fail(ContractError(f"{self.env_id}: a single-turn environment must return terminated=True after its step"))
        if not terminated and not truncated and self._turn >= self.manifest.max_turns:
            truncated = True
        self._done = terminated or truncated
        self._last_obs = obs
        return obs, float(reward), terminated, truncated, info

    def _fail(self, err: BaseException):
        self.last_error = err
        self._done = True
        info = {
            "success": False, "format_error": None, "action_is_valid": False, "turn": self._turn,
            "sandbox_error": err,
        }
        return self._last_obs, self._neutral_reward(), False, True, info

    def _neutral_reward(self) -> float:
        """Reward for a turn the environment did not score: 0 clipped into the declared range."""
        low, high = self.manifest.reward_range
        return min(max(0.0, low), high)


def _describe(value: Any) -> str:
    if isinstance(value, tuple):
        return f"a tuple of {len(value)}"
    return type(value).__name__

