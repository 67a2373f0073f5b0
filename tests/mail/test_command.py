"""`manage.py mail_gateway` as it is run: a process of its own, on the test database, until SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from games import replies
from tests.mail.conftest import reply, send
from tests.tasks.conftest import database_url
from wallsite.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"mail_gateway exited: {process.communicate()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("mail_gateway did not start listening")


def test_the_command_serves_replies_until_it_is_stopped(started_match, alice):
    match = started_match()
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "wallsite.settings.test",
        "DATABASE_URL": database_url(),
    }
    process = subprocess.Popen(
        [sys.executable, "manage.py", "mail_gateway", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        to = replies.reply_address(match=match, user=alice, version=0)
        send(port, reply(to=to, sender=alice.email, body="d4"))
        match.refresh_from_db()
        assert match.version == 1
        assert match.moves.get(seat__position=0).notation == "d4"
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert f"Mail gateway on 127.0.0.1:{port}" in out
    assert "Mail gateway stopped." in out
