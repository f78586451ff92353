"""Adapters that let outside RL stacks train on SPADE environments: TRL (``trl_env``), OpenEnv (``openenv_server``)
and verifiers (``verifiers_env``). Each imports its library lazily, so ``import spade_core`` never pulls them in."""
