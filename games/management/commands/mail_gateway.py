"""`manage.py mail_gateway`: the SMTP server that turns replies to turn e-mails into moves."""

from __future__ import annotations

import signal
import threading

from django.conf import settings
from django.core.management.base import BaseCommand

from games import mailin, replies


class Command(BaseCommand):
    help = "Receive replies to turn e-mails over SMTP and play the move on their first line."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default=settings.MAIL_GATEWAY_HOST, help="Address to listen on.")
        parser.add_argument("--port", type=int, default=settings.MAIL_GATEWAY_PORT, help="Port to listen on.")

    def handle(self, *args, host: str, port: int, **options) -> None:
        if not replies.enabled():
            self.stderr.write("MAIL_GATEWAY_DOMAIN is empty, so no e-mail carries a reply address.")
        controller = mailin.gateway_controller(host=host, port=port)
        controller.start()
        self.stdout.write(
            f"Mail gateway on {host}:{port} for move+...@{settings.MAIL_GATEWAY_DOMAIN} (Ctrl-C stops it)"
        )
        stopping = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stopping.set())
        try:
            while not stopping.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            controller.stop()
            self.stdout.write("Mail gateway stopped.")
