"""Messages to players: created in the transaction that caused them, sent once by a task.

A ``Notification`` row is the outbox. Creating it is cheap and safe to repeat (its ``(user, key)`` is
unique, so a retried sweep or a twice-called service makes no second row); sending it happens after
commit through Celery, or through the sweep when the queue was unreachable. Whether a message is still
wanted is decided again at sending time, because a player may have moved, opened the match or turned
e-mails off in between.

E-mails are built from the public game log filtered for the recipient's seat, never from the engine's
state or another seat's hand.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.unsubscribe import unsubscribe_url
from games import dispatch, replies, selectors, signals
from games.models import Match, Notification, Seat, Takeback, Turn
from games.timefmt import deadline_text, relative_text, when_text, zone_for

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
DEFAULT_PRESENCE_WINDOW = timedelta(minutes=3)

Kind = Notification.Kind
Status = Notification.Status
Notify = User.Notify


# --- creating -----------------------------------------------------------------------------------------


def notify_turn_started(*, turn: Turn, now: datetime) -> Notification | None:
    """A "your turn" e-mail for a player who wants one at once; None when not wanted (or made already).

    Digest readers get nothing here: the next digest lists the turn.
    """
    row = _your_turn_row(turn, now=now)
    return None if row is None else _save_once(row)


def notify_turns_opened(*, turns: list[Turn], now: datetime) -> list[Notification]:
    """``notify_turn_started`` for turns the caller's transaction has just created: no row can hold
    their keys yet, so one insert makes them all."""
    rows = [row for row in (_your_turn_row(turn, now=now) for turn in turns) if row is not None]
    return Notification.objects.bulk_create(rows)


def _your_turn_row(turn: Turn, *, now: datetime) -> Notification | None:
    user = _human(turn.seat)
    if user is None or user.notify != Notify.IMMEDIATE or user.on_vacation:
        return None
    return Notification(
        user=user,
        kind=Kind.YOUR_TURN,
        key=f"turn:{turn.pk}:start",
        match_id=turn.match_id,
        turn=turn,
        due_at=now,
    )


def reminder_create(*, turn: Turn, lead: int, now: datetime) -> Notification | None:
    """A reminder ``lead`` hours before the turn's deadline, for digest readers too."""
    user = _human(turn.seat)
    if user is None or not _wants_reminders(user):
        return None
    return _create(
        user=user,
        kind=Kind.REMINDER,
        key=_reminder_key(turn.pk, lead),
        match_id=turn.match_id,
        turn=turn,
        now=now,
    )


def reminders_create(*, turns: list[tuple[Turn, int]], now: datetime) -> list[int]:
    """``reminder_create`` for many (turn, lead) pairs at once, as the sweep claims them: one insert
    that skips keys already taken, then one query for the ids still pending."""
    rows = []
    for turn, lead in turns:
        user = _human(turn.seat)
        if user is not None and _wants_reminders(user):
            rows.append(
                Notification(
                    user_id=user.pk,
                    kind=Kind.REMINDER,
                    key=_reminder_key(turn.pk, lead),
                    match_id=turn.match_id,
                    turn_id=turn.pk,
                    due_at=now,
                )
            )
    if not rows:
        return []
    Notification.objects.bulk_create(rows, ignore_conflicts=True, batch_size=1000)
    return list(
        Notification.objects.filter(
            key__in=[row.key for row in rows], kind=Kind.REMINDER, status=Status.PENDING
        ).values_list("pk", flat=True)
    )


def _wants_reminders(user: User) -> bool:
    return user.notify != Notify.OFF and not user.on_vacation


def _reminder_key(turn_id: int, lead: int) -> str:
    return f"turn:{turn_id}:remind:{lead}"


def notify_match_event(*, match: Match, key: str, text: str, now: datetime) -> list[Notification]:
    """Tell every seated person about something that happened (a timeout, the end): one row each."""
    seats = match.seats.filter(user__isnull=False).exclude(user__notify=Notify.OFF).select_related("user")
    created = []
    for seat in seats:
        notification = _create(
            user=seat.user,
            kind=Kind.MATCH_EVENT,
            key=f"match:{match.pk}:{key}",
            match_id=match.pk,
            turn=None,
            now=now,
            text=text,
        )
        if notification is not None:
            created.append(notification)
    return created


def takeback_key(match_id: int, takeback_id: int) -> str:
    return f"match:{match_id}:takeback:{takeback_id}"


def takeback_of(key: str) -> int | None:
    """The takeback request a notification's key is about, if it is one's."""
    parts = key.split(":")
    if len(parts) == 4 and parts[2] == "takeback" and parts[3].isdigit():
        return int(parts[3])
    return None


def notify_takeback_asked(
    *, match: Match, takeback: Takeback, seats: list[Seat], text: str, now: datetime
) -> list[Notification]:
    """A player asks to take back a move: the players who must answer hear of it (a match event whose
    e-mail may be answered ACCEPT or REFUSE). ``seats`` come with their users."""
    created = []
    for seat in seats:
        user = _human(seat)
        if user is None or user.notify == Notify.OFF:
            continue
        notification = _create(
            user=user,
            kind=Kind.MATCH_EVENT,
            key=takeback_key(match.pk, takeback.pk),
            match_id=match.pk,
            turn=None,
            now=now,
            text=text,
        )
        if notification is not None:
            created.append(notification)
    return created


def end_key(match_id: int) -> str:
    return f"match:{match_id}:end"


def notify_match_ended(*, match: Match, seats: list[Seat], how: str, now: datetime) -> list[int]:
    """The result, once, to every player of the match just ended who does not have it open; returns
    the ids of the rows still to send.

    However it ended (play, resignation, timeout, a moderator), one key per match makes it one message
    per player even when two paths announce the same end. Digest readers get it at once as well: a
    digest lists the moves awaited, and a finished match awaits none. ``seats`` come with their users.
    """
    seen_since = now - _presence_window()
    users = {
        seat.user_id
        for seat in seats
        if seat.user_id
        and seat.user.is_active
        and seat.user.notify != Notify.OFF
        # On the page, the result is in front of them.
        and not (seat.last_seen_at is not None and seat.last_seen_at >= seen_since)
    }
    if not users:
        return []
    key = end_key(match.pk)
    Notification.objects.bulk_create(
        [
            Notification(
                user_id=user_id, kind=Kind.MATCH_EVENT, key=key, match_id=match.pk, text=how, due_at=now
            )
            for user_id in sorted(users)
        ],
        ignore_conflicts=True,
    )
    return list(
        Notification.objects.filter(key=key, user_id__in=users, status=Status.PENDING).values_list(
            "pk", flat=True
        )
    )


def digests_create(*, now: datetime) -> list[int]:
    """One digest per digest reader whose local clock shows their chosen hour, at most one a day.

    Meant to run from the sweep at least once an hour; the key carries the local date, so running it
    every minute, or twice at once, still makes one digest a day.
    """
    awaiting = selectors.turns_awaiting(user=OuterRef("pk"))
    readers = User.objects.filter(is_active=True, notify=Notify.DIGEST, on_vacation=False).filter(
        Exists(awaiting.values("pk"))
    )
    created = []
    for user in readers.only("pk", "time_zone", "digest_hour"):
        local = timezone.localtime(now, zone_for(user.time_zone))
        if local.hour != user.digest_hour:
            continue
        notification = _create(
            user=user,
            kind=Kind.DIGEST,
            key=f"digest:{local.date().isoformat()}",
            match_id=None,
            turn=None,
            now=now,
        )
        if notification is not None:
            created.append(notification.pk)
    return created


def _human(seat: Seat) -> User | None:
    """The person who plays the seat, unless a computer does (a bot, or autopilot while they're away)."""
    if not seat.user_id or seat.autopilot:
        return None
    user = seat.user
    return user if user.is_active else None


def _create(
    *,
    user: User,
    kind: str,
    key: str,
    match_id: int | None,
    turn: Turn | None,
    now: datetime,
    text: str = "",
) -> Notification | None:
    """The new row, or None if this user already has one for this key."""
    return _save_once(
        Notification(user=user, kind=kind, key=key, match_id=match_id, turn=turn, text=text, due_at=now)
    )


def _save_once(row: Notification) -> Notification | None:
    """Insert ``row``, or None if its user has a row with its key already (inserted at the same moment by
    another process too: the unique key decides, and the savepoint keeps the caller's transaction)."""
    try:
        with transaction.atomic():
            row.save(force_insert=True)
    except IntegrityError:
        return None
    return row


# --- queueing -----------------------------------------------------------------------------------------


def queue_send(ids: Iterable[int]) -> None:
    """Hand the rows to the workers once the transaction that made them has committed."""
    dispatch.notifications_enqueue_on_commit(list(ids))


def pending_ids(*, due_by: datetime, limit: int) -> list[int]:
    """The pending rows due by ``due_by``, the oldest first: what a flush or the sweep sends."""
    return list(
        Notification.objects.filter(status=Status.PENDING, due_at__lte=due_by)
        .order_by("due_at")
        .values_list("pk", flat=True)[:limit]
    )


# --- sending ------------------------------------------------------------------------------------------


def notification_send(*, notification_id: int, now: datetime | None = None) -> str:
    """Send one notification exactly once, or record why it was not needed; returns what happened.

    The row lock makes a second, concurrent call wait and then find the row no longer pending. The
    e-mail goes out before the commit that marks it sent: should the process die in between, the
    message may go twice, which beats losing it.
    """
    now = now or timezone.now()
    with transaction.atomic():
        notification = Notification.objects.select_for_update().filter(pk=notification_id).first()
        if notification is None:
            return "missing"
        if notification.status != Status.PENDING:
            return f"already {notification.status}"
        user = notification.user
        reason = _skip_reason(notification, user, now)
        if reason:
            notification.status = Status.SKIPPED
            notification.skip_reason = reason
            notification.save(update_fields=["status", "skip_reason"])
            return f"skipped: {reason}"
        try:
            _email(notification, user, now).send()
        except Exception as exc:
            # Keep the row for the sweep, later each time; give up after a few tries.
            notification.attempts += 1
            if notification.attempts >= MAX_ATTEMPTS:
                notification.status = Status.FAILED
            else:
                notification.due_at = now + timedelta(minutes=2**notification.attempts)
            notification.save(update_fields=["attempts", "status", "due_at"])
            log.warning(
                "Sending notification %s failed (attempt %d): %s", notification.pk, notification.attempts, exc
            )
            return f"{notification.status}: {exc}"
        notification.status = Status.SENT
        notification.sent_at = now
        notification.attempts += 1
        notification.save(update_fields=["status", "sent_at", "attempts"])
        return "sent"


def _presence_window() -> timedelta:
    return getattr(settings, "PRESENCE_WINDOW", DEFAULT_PRESENCE_WINDOW)


def _skip_reason(notification: Notification, user: User, now: datetime) -> str:
    if not user.is_active:
        return "the account is closed"
    if not user.email:
        return "no e-mail address"
    if user.notify == Notify.OFF:
        return "e-mails are turned off"
    kind = notification.kind
    takeback_id = takeback_of(notification.key) if kind == Kind.MATCH_EVENT else None
    if takeback_id is not None:
        if not Takeback.objects.filter(pk=takeback_id, status=Takeback.Status.OPEN).exists():
            return "the takeback request was decided"
        # On the page, the request is in front of them, with its buttons.
        if Seat.objects.filter(
            match_id=notification.match_id, user=user, last_seen_at__gte=now - _presence_window()
        ).exists():
            return "you had the match open"
        return ""
    if kind == Kind.MATCH_EVENT:
        # A result waiting since a queue outage is old news to a player who has since opened the match.
        if (
            notification.key == end_key(notification.match_id)
            and Seat.objects.filter(
                match_id=notification.match_id, user=user, last_seen_at__gte=now - _presence_window()
            ).exists()
        ):
            return "you had the match open"
        return ""
    if user.on_vacation:
        return "you are on vacation"
    if kind == Kind.DIGEST:
        return "" if selectors.turns_awaiting(user=user).exists() else "nothing awaits you any more"
    turn = notification.turn
    if turn is None or turn.closed_at is not None:
        return "you already moved" if turn is None or turn.closed_by in ("", "move") else "the turn is over"
    if turn.match.status != Match.Status.ACTIVE:
        return "the match is over"
    seat = turn.seat
    if seat.autopilot:
        return "the computer is playing for you"
    if seat.last_seen_at is not None and seat.last_seen_at >= now - _presence_window():
        return "you had the match open"
    if kind == Kind.YOUR_TURN and user.notify != Notify.IMMEDIATE:
        return "you chose the daily digest"
    return ""


# --- the e-mails --------------------------------------------------------------------------------------


def _email(notification: Notification, user: User, now: datetime) -> EmailMultiAlternatives:
    tz = zone_for(user.time_zone)
    site = settings.SITE_URL.rstrip("/")
    unsubscribe = unsubscribe_url(user=user)
    context: dict[str, Any] = {
        "user": user,
        "site_url": site,
        "settings_url": site + reverse("account-settings"),
        "unsubscribe_url": unsubscribe,
        "zone": str(tz),
    }
    kind = notification.kind
    reply_to: list[str] = []
    if kind == Kind.DIGEST:
        items = [
            _match_item(turn.match, turn.deadline, tz, now, site)
            for turn in selectors.turns_awaiting(user=user)
        ]
        context["items"] = items
        count = len(items)
        subject = f"{count} match{'' if count == 1 else 'es'} await{'s' if count == 1 else ''} your move"
        template = "digest"
    else:
        match = notification.match
        turn = notification.turn
        if turn is None:
            # A match event still tells the reader when their own move there is due.
            turn = selectors.turns_awaiting(user=user).filter(match=match).first()
        context.update(_match_item(match, turn.deadline if turn else None, tz, now, site))
        name = match.display_name
        ending = kind == Kind.MATCH_EVENT and notification.key == end_key(match.pk)
        titles = [title for _receiver, title in signals.match_title.send(sender=Match, match=match) if title]
        seats = list(match.seats.select_related("user").order_by("position")) if titles or ending else []
        # A league fixture names itself and the opponents: a player in several tells them apart.
        title = (
            f"{titles[0]}: you against {_names(s for s in seats if s.user_id != user.pk)}" if titles else ""
        )
        context["title"] = title
        if kind == Kind.YOUR_TURN:
            context["last"] = _last_move(match, turn.seat)
            subject = f"{title} \N{EM DASH} your move" if title else f"Your move in {name}"
            template = "your_turn"
        elif kind == Kind.REMINDER:
            lead = _lead_of(notification.key)
            context["lead"] = lead
            if turn.deadline is None:
                due = " is waiting"
            elif turn.deadline > now:
                due = f" is due {relative_text(turn.deadline, now)}"
            else:
                due = " is overdue"
            subject = (
                f"{title} \N{EM DASH} reminder: your move{due}"
                if title
                else f"Reminder: your move in {name}{due}"
            )
            template = "reminder"
        elif ending:
            context.update(_result(match, seats, user))
            context["how"] = notification.text
            subject = f"{title} \N{EM DASH} {context['result']}" if title else f"{name}: {context['result']}"
            template = "match_end"
        else:
            context["text"] = notification.text
            summary = notification.text.splitlines()[0] if notification.text else "news"
            subject = f"{title} \N{EM DASH} {summary}" if title else f"{name}: {summary}"
            template = "match_event"
        takeback = _takeback_for(notification)
        if takeback is not None and replies.enabled():
            # ACCEPT or REFUSE by reply: the address carries the version the request was made at, so
            # a reply after the game moved on finds it lapsed.
            reply_to = [replies.reply_address(match=match, user=user, version=takeback.version)]
        if kind in (Kind.YOUR_TURN, Kind.REMINDER) and replies.enabled():
            # The move may be answered by e-mail; the address carries the version this e-mail shows,
            # so a reply to it after the game moved on is refused like a stale page.
            reply_to = [replies.reply_address(match=match, user=user, version=match.version)]
            context["reply_address"] = reply_to[0]
            context["notation_hint"] = replies.notation_hint(match.game)
    context["subject"] = subject = _one_line(subject)
    body = render_to_string(f"email/{template}.txt", context)
    html = render_to_string(f"email/{template}.html", context)
    message = EmailMultiAlternatives(
        subject=subject,
        body=body,
        to=[user.email],
        reply_to=reply_to,
        headers={
            # RFC 8058: a mail client may unsubscribe with one POST to this address, no page needed.
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )
    message.attach_alternative(html, "text/html")
    return message


def _takeback_for(notification: Notification) -> Takeback | None:
    takeback_id = takeback_of(notification.key) if notification.kind == Kind.MATCH_EVENT else None
    return None if takeback_id is None else Takeback.objects.filter(pk=takeback_id).first()


def _match_item(match: Match, deadline: datetime | None, tz, now: datetime, site: str) -> dict[str, Any]:
    return {
        "match": match,
        "match_name": match.display_name,
        "game_title": match.engine.title,
        "match_url": site + match.get_absolute_url(),
        "deadline": deadline_text(deadline, tz, now) if deadline else "",
        "deadline_at": when_text(deadline, tz) if deadline else "",
        "deadline_in": relative_text(deadline, now) if deadline else "",
    }


def _names(seats: Iterable[Seat]) -> str:
    names = [seat.player_name for seat in seats]
    if len(names) < 2:
        return names[0] if names else "nobody"
    return ", ".join(names[:-1]) + " and " + names[-1]


def _result(match: Match, seats: list[Seat], user: User) -> dict[str, Any]:
    """The final table of a match that has ended (public: places, scores and who left), and the
    reader's own place."""
    ranked = sorted(seats, key=lambda seat: (seat.rank is None, seat.rank or 0, seat.position))
    rows = [
        {
            "place": _ordinal(seat.rank) if seat.rank else "",
            "name": seat.player_name,
            "score": "" if seat.score is None else _number(seat.score),
            "note": "" if seat.status == Seat.Status.PLAYING else seat.get_status_display().lower(),
            "you": seat.user_id == user.pk,
        }
        for seat in ranked
    ]
    mine = next((seat for seat in seats if seat.user_id == user.pk), None)
    place = ""
    if mine is not None and mine.rank:
        place = f"You finished {_ordinal(mine.rank)} of {len(seats)}."
    result = match.result_text or f"The match is {match.get_status_display().lower()}."
    return {"result": result, "standings": rows, "your_place": place}


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _last_move(match: Match, seat: Seat) -> selectors.LogLine | None:
    """The latest line of the log as this seat may read it: events hidden from it are already gone."""
    # The last few lines are enough, and keep an e-mail's cost flat however long the match.
    lines = selectors.match_log_for(match=match, position=seat.position, first=match.log_length - 20)
    return next((line for line in reversed(lines) if line.notation or line.events), None)


def _lead_of(key: str) -> int | None:
    try:
        return int(key.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return None


def _one_line(text: str, limit: int = 150) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
