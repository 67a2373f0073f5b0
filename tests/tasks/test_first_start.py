"""The first `make run` on a fresh checkout: runsite starts Redis before it loads the demo data, so the
demo's e-mails and computer moves are queued, and not one "Could not queue" line is printed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from wallsite.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120  # seconds: migrations, the demo data and four processes on a busy machine


def test_runsite_starts_redis_then_loads_the_demo_quietly_then_the_site(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CACHE_URL")}
    env.update(DJANGO_SETTINGS_MODULE="wallsite.settings.base", WALLSITE_VAR_DIR=str(tmp_path / "var"))
    python = sys.executable
    migrated = subprocess.run(
        [python, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, capture_output=True
    )
    assert migrated.returncode == 0, migrated.stderr.decode()

    log_path = tmp_path / "runsite.log"
    web, redis = free_port(), free_port()
    with log_path.open("wb") as log:
        site = subprocess.Popen(
            [python, "manage.py", "runsite", f"127.0.0.1:{web}", "--redis-port", str(redis)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while "Wallsite is at" not in log_path.read_text(errors="replace"):
            assert site.poll() is None, f"runsite exited early:\n{log_path.read_text(errors='replace')}"
            assert time.monotonic() < deadline, (
                f"runsite did not start:\n{log_path.read_text(errors='replace')}"
            )
            time.sleep(0.5)
    finally:
        site.send_signal(signal.SIGTERM)
        try:
            site.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(site.pid, signal.SIGKILL)
            site.wait()
    output = log_path.read_text(errors="replace")
    assert "Could not queue" not in output
    redis_up = output.index(f"Embedded Redis on 127.0.0.1:{redis}")
    demo_loaded = output.index("Demo users alice, bob, carol, dave created")
    site_up = output.index("Wallsite is at")
    assert redis_up < demo_loaded < site_up
    assert "Stopped." in output
