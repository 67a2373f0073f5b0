"""Switching this process's Celery app between eager tasks (the default in tests) and a real broker."""

from __future__ import annotations

from contextlib import contextmanager

from kombu import pools

from wallsite.celery import app


def use_broker(url: str) -> None:
    """Point this process's Celery app at a real broker (tests run tasks eagerly otherwise)."""
    app.conf.update(broker_url=url, result_backend=url, task_always_eager=False)
    drop_connections()


def drop_connections() -> None:
    # kombu pools connections per broker URL in a global registry; empty it so the next task opens a
    # fresh connection to whichever broker is configured now.
    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)


@contextmanager
def broker(url: str):
    """Send tasks to ``url`` for the duration of the block, then go back to eager tasks."""
    previous = {key: app.conf[key] for key in ("broker_url", "result_backend", "task_always_eager")}
    use_broker(url)
    try:
        yield
    finally:
        app.conf.update(**previous)
        drop_connections()
