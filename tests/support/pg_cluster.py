"""A PostgreSQL server of a test's own: initialised in a scratch folder, on a free loopback port, so that a
test may stop it, crash it and start it again without touching the machine's server.

It uses the server binaries of the machine's PostgreSQL installation (``pg_config --bindir``, or Debian's
/usr/lib/postgresql/<version>/bin). PostgreSQL refuses to run as root: under root the server runs as the
``postgres`` account, which then owns the folder.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def _bindir() -> Path:
    found = shutil.which("pg_config")
    if found:
        candidate = Path(subprocess.run([found, "--bindir"], capture_output=True, text=True).stdout.strip())
        if (candidate / "initdb").exists():
            return candidate
    installed = Path("/usr/lib/postgresql").glob("*/bin/initdb")
    versions = sorted(installed, key=lambda path: int(path.parent.parent.name))
    if not versions:
        raise RuntimeError("No PostgreSQL server binaries (initdb, pg_ctl) on this machine.")
    return versions[-1].parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateCluster:
    def __init__(self) -> None:
        self.bindir = _bindir()
        # Its own folder right under the temporary directory: the server's account must reach it.
        self.root = Path(tempfile.mkdtemp(prefix="wallsite-pg-"))
        self.data = self.root / "pgdata"
        self.port = _free_port()
        self.log = self.root / "postgres.log"
        self._as: list[str] = []
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            self._as = ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--init-groups"]
            os.chown(self.root, account.pw_uid, account.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run(
            [*self._as, str(self.bindir / tool), *args], capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.data} -c max_connections=60"
        data, log = str(self.data), str(self.log)
        self._run("pg_ctl", "-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start")

    def crash(self) -> None:
        """Stop at once, as a power cut would: no checkpoint, every connection dropped; the next start
        replays the write-ahead log."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def accepting(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def close(self) -> None:
        if (self.data / "postmaster.pid").exists():
            try:
                self.stop()
            except RuntimeError:
                self.crash()
        deadline = time.monotonic() + 10
        while self.accepting() and time.monotonic() < deadline:
            time.sleep(0.1)
        shutil.rmtree(self.root, ignore_errors=True)
