"""`manage.py match_verify <id>` (or `--record FILE`): draw every random step of an ended match again
from its revealed seed and check the whole log against it, from public data alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games import records
from games.errors import NotFound
from games.models import Match, match_key
from games.record_views import match_record


class Command(BaseCommand):
    help = (
        "Verify an ended match's dice: replay its record (the one its page offers for download) from the "
        "revealed seed and name the first line that differs. Exits with 1 when it does not verify."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("match_id", nargs="?", help="The match's number on this site.")
        parser.add_argument("--record", type=Path, help="A downloaded record (JSON) to check instead.")

    def handle(self, *args: Any, match_id: str | None, record: Path | None, **options: Any) -> None:
        if (match_id is None) == (record is None):
            raise CommandError("Give a match number or --record FILE (one of the two).")
        if record is not None:
            try:
                document = records.record_load(record.read_bytes())
            except OSError as exc:
                raise CommandError(f"Cannot read {record}: {exc.strerror}.") from None
            except records.RecordInvalid as exc:
                raise CommandError(str(exc)) from None
        else:
            try:
                match = Match.objects.get(pk=match_key(match_id))
            except (NotFound, Match.DoesNotExist):
                raise CommandError(f"There is no match {match_id}.") from None
            if not match.ended:
                raise CommandError("The match has not ended: its seed is still secret.")
            document = match_record(match)
        result = records.record_verify(document)
        self.stdout.write(f"Commitment: {result.commitment or '(none)'}")
        self.stdout.write(f"Seed:       {result.seed or '(none)'}")
        for line in result.lines:
            if line.chance_step is None and line.ok:
                continue
            step = f"step {line.chance_step}" if line.chance_step is not None else "no step"
            mark = "ok" if line.ok else "DIFFERS"
            self.stdout.write(f"line {line.seq:>4} {step:>9}: {mark}: {'; '.join(line.recomputed) or '-'}")
        if not result.ok:
            if result.rules_changed:
                self.stderr.write(f"Played under other rules: {result.problem}")
            else:
                self.stderr.write(f"Does not verify at {result.failed_at}: {result.problem}")
            raise SystemExit(1)
        drawn = len(result.chance_lines)
        self.stdout.write(f"Verified: {len(result.lines)} lines replayed, {drawn} random steps drawn again.")
