"""A TCP proxy on loopback that a test can cut and restore, to take a server away from the site.

The machine's PostgreSQL cannot be restarted from a test, but the site can be pointed at this proxy
instead: ``cut()`` aborts every connection through it and refuses new ones at once (the client sees
"server closed the connection", as during a restart or a failover), ``restore()`` lets them through
again. It runs its own asyncio loop in a daemon thread, so a synchronous test drives it.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import suppress

CHUNK = 64 * 1024


class TcpProxy:
    def __init__(self, *, target_host: str, target_port: int, host: str = "127.0.0.1", port: int = 0) -> None:
        self.target = (target_host, target_port)
        self.host = host
        self.port = port
        self.cut_off = False
        self.accepted = 0
        self.refused = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tcp-proxy", daemon=True)
        self._server: asyncio.base_events.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._handlers: set[asyncio.Task] = set()

    # --- driven from the test's thread ----------------------------------------------------------------

    def start(self) -> TcpProxy:
        self._thread.start()
        self._call(self._listen())
        return self

    def cut(self) -> None:
        """Drop every connection now and refuse new ones until ``restore()``."""
        self._call(self._cut())

    def restore(self) -> None:
        self._call(self._restore())

    def close(self) -> None:
        if not self._thread.is_alive():
            return
        self._call(self._shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, coroutine) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    # --- inside the loop -------------------------------------------------------------------------------

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._accept, self.host, self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _cut(self) -> None:
        self.cut_off = True
        for writer in list(self._open):
            writer.transport.abort()  # a reset, not a polite close: the peer learns at once
        self._open.clear()

    async def _restore(self) -> None:
        self.cut_off = False

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        await self._cut()
        # Aborted transports end their pipes at once; let the handlers finish rather than cancel them.
        if self._handlers:
            await asyncio.wait(set(self._handlers), timeout=5)

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._handlers.add(task)
        try:
            await self._serve(client_reader, client_writer)
        finally:
            self._handlers.discard(task)

    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        if self.cut_off:
            self.refused += 1
            client_writer.transport.abort()
            return
        try:
            server_reader, server_writer = await asyncio.open_connection(*self.target)
        except OSError:
            self.refused += 1
            client_writer.transport.abort()
            return
        if self.cut_off:  # cut while we were connecting
            server_writer.transport.abort()
            client_writer.transport.abort()
            return
        self.accepted += 1
        pair = {client_writer, server_writer}
        self._open |= pair
        try:
            await asyncio.gather(
                self._pipe(client_reader, server_writer), self._pipe(server_reader, client_writer)
            )
        finally:
            self._open -= pair

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(CHUNK):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            # One side ended: end the other too (PostgreSQL's protocol has no half-closed use).
            with suppress(Exception):
                writer.close()
