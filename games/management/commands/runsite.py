"""Everything `make run` starts: Redis (embedded unless REDIS_URL is set), then the demo data into an empty
database, then two Celery workers (one for the default queue, one for computer opponents' moves), beat and
the web server; Ctrl-C stops them all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from wallsite.embedded_redis import redis_start, redis_stop


class Command(BaseCommand):
    help = (
        "Start Redis (embedded unless REDIS_URL is set), load the demo data into an empty database, then "
        "start Celery workers, beat and the web server."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--redis-port", type=int, default=6380, help="Port of the embedded Redis.")
        parser.add_argument(
            "--no-demo", dest="demo", action="store_false", help="Leave an empty database empty."
        )

    def handle(self, *args, addrport: str, redis_port: int, demo: bool, **options) -> None:
        env = os.environ.copy()
        redis = None
        if not os.environ.get("REDIS_URL"):
            redis = redis_start(port=redis_port, directory=settings.VAR_DIR / "redis")
            env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
            self.stdout.write(f"Embedded Redis on 127.0.0.1:{redis_port}")
        python = sys.executable
        if demo:
            # Once Redis answers, so the demo's e-mails and computer moves are queued rather than each
            # failing to reach it; in a process of its own, with the broker the workers will use.
            self.stdout.flush()
            loaded = subprocess.run([python, "manage.py", "seed_demo"], env=env, check=False)
            if loaded.returncode != 0:
                if redis is not None:
                    redis_stop(redis)
                raise CommandError("Loading the demo data failed (see above); nothing else was started.")
        schedule = str(settings.VAR_DIR / "celerybeat-schedule")
        worker = [python, "-m", "celery", "-A", "wallsite", "worker", "-l", "info"]
        commands = {
            # E-mails, chance steps, expiries and the sweep: never stuck behind a computer's thinking.
            "worker": [*worker, "-Q", "celery", "--concurrency", "2", "-n", "celery@%h"],
            # Computer opponents' moves (seconds of search each), one at a time, on a queue of their own.
            "bots worker": [*worker, "-Q", "bots", "--concurrency", "1", "-n", "bots@%h"],
            "beat": [python, "-m", "celery", "-A", "wallsite", "beat", "-l", "info", "--schedule", schedule],
            "web": [python, "manage.py", "runserver", addrport, "--noreload"],
        }
        children = {name: subprocess.Popen(command, env=env) for name, command in commands.items()}
        self.stdout.write(f"Wallsite is at http://{addrport}/ (Ctrl-C stops everything)")
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping:
                for name, child in children.items():
                    if child.poll() is not None:
                        self.stderr.write(
                            f"The {name} process exited ({child.returncode}); stopping the rest."
                        )
                        stopping = True
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for child in children.values():
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children.values():
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()
            if redis is not None:
                redis_stop(redis)
            self.stdout.write("Stopped.")
