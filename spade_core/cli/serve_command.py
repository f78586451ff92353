"""``spade serve``: registry environments as an OpenEnv server (``pip install "spade-rl[openenv]"``)."""

from __future__ import annotations

import click

from spade_core.adapters.selection import selection
from spade_core.adapters.serve_settings import ServeConfig
from spade_core.adapters.session import SessionError
from spade_core.display import clean


@click.command("serve")
@click.argument("env_ids", nargs=-1, metavar="[ENV_ID]...")
@click.option("--domain", default=None, help="Serve every accepted environment of this domain.")
@click.option("--tag", "tags", multiple=True, help="Serve accepted environments with this tag (repeatable: all match).")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--max-sessions", default=ServeConfig.max_sessions, show_default=True, type=click.IntRange(min=1),
              help="Concurrent sessions; a client past the cap is refused.")
@click.option("--idle-timeout", default=ServeConfig.idle_timeout_s, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Seconds a session may stay idle before it is reaped.")
@click.option("--step-timeout", default=ServeConfig.step_timeout_s, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Seconds one reset or step may take; past it the episode ends with an error.")
@click.option("--worker-slots", default=ServeConfig.worker_slots, show_default=True, type=click.IntRange(min=1),
              help="Resets and steps running at once, shared fairly between clients.")
@click.option("--steps-per-client", default=ServeConfig.steps_per_client, show_default=True,
              type=click.IntRange(min=1), help="Worker slots one client (address, or X-Spade-Client) holds at once.")
@click.option("--sessions-per-client", default=ServeConfig.sessions_per_client, show_default=True,
              type=click.IntRange(min=1), help="WebSocket sessions one client may hold open.")
@click.option("--queue-timeout", default=ServeConfig.queue_timeout_s, show_default=True,
              type=click.FloatRange(min=0, min_open=True),
              help="Seconds a reset or step waits for a worker slot before it is refused as busy.")
def serve_command(env_ids: tuple[str, ...], domain: str | None, tags: tuple[str, ...], host: str, port: int,
                  max_sessions: int, idle_timeout: float, step_timeout: float, worker_slots: int,
                  steps_per_client: int, sessions_per_client: int, queue_timeout: float) -> None:
    """Serve environments over HTTP and WebSocket with OpenEnv (reset(seed, env_id, hint), step({"action": ...}))."""
    try:
        import uvicorn

        from spade_core.adapters.openenv_server import build_server
    except ImportError as err:
        raise click.ClickException(f"spade serve needs OpenEnv ({err.name} is missing): "
                                   "pip install 'spade-rl[openenv]'") from err
    try:
        ids = selection(env_ids, domain=domain, tags=tags).resolve()
    except SessionError as err:
        raise click.ClickException(clean(str(err))) from err
    config = ServeConfig(env_ids=tuple(ids), max_sessions=max_sessions, idle_timeout_s=idle_timeout,
                         step_timeout_s=step_timeout, worker_slots=worker_slots,
                         steps_per_client=steps_per_client, sessions_per_client=sessions_per_client,
                         queue_timeout_s=queue_timeout)
    click.echo(f"serving {len(ids)} environment(s) on http://{host}:{port} (WebSocket /ws, /schema, /health)")
    uvicorn.run(build_server(config).app, host=host, port=port, log_level="warning", **config.uvicorn_settings())
