"""What moderators do, and players' reports. Every action checks the moderator's permission, happens in
one transaction with its ``ModerationAction`` record, and (for a match) writes its public line in the
match log through ``games.services`` and tells the players by e-mail like any other match event.

Reasons are public: the players read them in the match log. A private ``note`` goes in the record only.
Report handling and suspensions are recorded but not announced in any match.

A moderator never acts on a match they hold or held a seat in, nor on a report about themselves:
another moderator must (``seat_held``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group, Permission
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from chat.models import ChatMessage
from chat.selectors import chat_access
from games import notifications
from games import services as games
from games.errors import Conflict, Forbidden, NotFound, ServiceError
from games.models import Match, Move, Seat
from moderation import permissions
from moderation.models import ModerationAction, Report, Suspension

Kind = ModerationAction.Kind
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_REASON = 300
MAX_SUSPENSION = timedelta(days=3650)
REPORTS_PER_DAY = 20
SEAT_HELD = "You hold or held a seat in this match: another moderator must act on it."


class RateLimited(ServiceError):
    status = 429


# --- matches ------------------------------------------------------------------------------------------


def match_pause(
    *, moderator: AbstractBaseUser, match_id: int, reason: str, report_id: int | None = None
) -> ModerationAction:
    def change(why: str) -> Move:
        return games.match_pause(match_id=match_id, reason=why)

    return _match_action(moderator, match_id, Kind.PAUSE, reason, change, report_id=report_id)


def match_resume(
    *, moderator: AbstractBaseUser, match_id: int, reason: str, report_id: int | None = None
) -> ModerationAction:
    def change(why: str) -> Move:
        return games.match_resume(match_id=match_id, reason=why)

    return _match_action(moderator, match_id, Kind.RESUME, reason, change, report_id=report_id)


def turn_extend(
    *,
    moderator: AbstractBaseUser,
    match_id: int,
    position: int,
    hours: int,
    reason: str,
    report_id: int | None = None,
) -> ModerationAction:
    def change(why: str) -> Move:
        return games.turn_extend(match_id=match_id, position=position, by=timedelta(hours=hours), reason=why)

    target = _occupant(match_id, position)
    return _match_action(moderator, match_id, Kind.EXTEND, reason, change, report_id=report_id, target=target)


def seat_hand_over(
    *,
    moderator: AbstractBaseUser,
    match_id: int,
    position: int,
    reason: str,
    username: str = "",
    bot: str = "",
    report_id: int | None = None,
) -> ModerationAction:
    """Hand the seat to the user called ``username`` or to a computer opponent of kind ``bot``."""
    user = None
    if username.strip():
        user = get_user_model().objects.filter(username=username.strip()).first()
        if user is None:
            raise ServiceError(f"There is no player called {username.strip()!r}.")

    def change(why: str) -> Move:
        if user is not None and user.pk == moderator.pk:
            raise Forbidden("You cannot hand a seat to yourself: another moderator must.")
        return games.seat_hand_over(match_id=match_id, position=position, user=user, bot=bot, reason=why)

    target = _occupant(match_id, position)
    return _match_action(
        moderator, match_id, Kind.HAND_OVER, reason, change, report_id=report_id, target=target
    )


def seat_remove(
    *, moderator: AbstractBaseUser, match_id: int, position: int, reason: str, report_id: int | None = None
) -> ModerationAction:
    def change(why: str) -> Move:
        return games.seat_remove(match_id=match_id, position=position, reason=why)

    target = _occupant(match_id, position)
    return _match_action(moderator, match_id, Kind.REMOVE, reason, change, report_id=report_id, target=target)


def move_rollback(
    *, moderator: AbstractBaseUser, match_id: int, reason: str, report_id: int | None = None
) -> ModerationAction:
    def change(why: str) -> Move:
        return games.move_rollback(match_id=match_id, reason=why)

    return _match_action(moderator, match_id, Kind.ROLLBACK, reason, change, report_id=report_id)


def match_adjudicate(
    *, moderator: AbstractBaseUser, match_id: int, ranks: list[int], reason: str, report_id: int | None = None
) -> ModerationAction:
    def change(why: str) -> Move:
        return games.match_adjudicate(match_id=match_id, ranks=ranks, reason=why)

    return _match_action(moderator, match_id, Kind.ADJUDICATE, reason, change, report_id=report_id)


def match_end(
    *, moderator: AbstractBaseUser, match_id: int, status: str, reason: str, report_id: int | None = None
) -> ModerationAction:
    """End a match as ``abandoned`` or ``cancelled`` (see games.services.match_end)."""

    def change(why: str) -> Move:
        return games.match_end(match_id=match_id, status=status, reason=why)

    kind = Kind.CANCEL if status == Match.Status.CANCELLED else Kind.ABANDON
    return _match_action(moderator, match_id, kind, reason, change, report_id=report_id)


@dataclass(frozen=True)
class SeatSecrets:
    position: int
    player: str
    board: str  # SVG drawn from what this seat sees
    private: dict[str, Any]  # this seat's hand, sealed choices ...


def match_secrets_view(
    *, moderator: AbstractBaseUser, match_id: int, reason: str, report_id: int | None = None
) -> tuple[ModerationAction, list[SeatSecrets]]:
    """What every seat of the match knows, side by side, to judge a cheating report. Recorded, and
    announced in the match log. The future stays hidden here too: deck order and the RNG state are
    no seat's knowledge, so a moderator never sees them either."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NotFound("There is no such match.")
    if match.engine_state is None:
        raise Conflict("This match has no position yet.")

    def change(why: str) -> Move:
        text = f"A moderator looked at every player's hidden information: {why}"
        return games.match_log_note(match_id=match_id, text=text)

    action = _match_action(
        moderator,
        match_id,
        Kind.VIEW_HIDDEN,
        reason,
        change,
        report_id=report_id,
        perm=permissions.HIDDEN_STATE,
        tell_players=False,
    )
    match.refresh_from_db()
    engine, state = match.engine, match.engine_state
    secrets = []
    for seat in match.seats.select_related("user"):
        view = engine.view(state, seat.position)
        secrets.append(
            SeatSecrets(
                position=seat.position,
                player=seat.player_name,
                board=engine.render_svg(view, seat.position, interactive=False),
                private=engine.private_view(state, seat.position),
            )
        )
    return action, secrets


def _match_action(
    moderator: AbstractBaseUser,
    match_id: int,
    kind: str,
    reason: str,
    change: Callable[[str], Move],
    *,
    report_id: int | None,
    target: AbstractBaseUser | None = None,
    perm: str = permissions.MATCHES,
    tell_players: bool = True,
) -> ModerationAction:
    """Every moderator action on a match comes through here: the permission, then the seat check."""
    _require(moderator, perm)
    _refuse_own_match(moderator, match_id)
    reason = _reason(reason)
    report = _report_or_none(report_id)
    started = timezone.now()
    with transaction.atomic():
        line = change(reason)
        action = _record(
            moderator=moderator,
            kind=kind,
            summary=line.events[0]["text"],
            reason=reason,
            match_id=match_id,
            target_user=target,
            report=report,
            log_line=line,
        )
        if tell_players:
            match = Match.objects.only("pk", "finished_at").get(pk=match_id)
            # An action that ended the match is told once, with the result, by the match's end e-mail.
            if not (match.finished_at and match.finished_at >= started):
                notes = notifications.notify_match_event(
                    match=match, key=f"moderation:{action.pk}", text=action.summary, now=action.created_at
                )
                notifications.queue_send([note.pk for note in notes])
    return action


def seat_held(*, user: AbstractBaseUser, match_id: int) -> bool:
    """Whether ``user`` holds a seat in the match, in any status (playing, resigned, forfeited), or held
    one a moderator handed to someone else: the seat then names its new holder, and only the hand-over's
    record (its ``target_user``, the occupant before) remembers the old one."""
    if not user.is_authenticated:
        return False
    return (
        Seat.objects.filter(match_id=match_id, user_id=user.pk).exists()
        or ModerationAction.objects.filter(
            match_id=match_id, kind=Kind.HAND_OVER, target_user_id=user.pk
        ).exists()
    )


def _refuse_own_match(moderator: AbstractBaseUser, match_id: int) -> None:
    # A player judging their own match could pause a lost position, read the other hands or adjudicate
    # a rated result in their own favour.
    if seat_held(user=moderator, match_id=match_id):
        raise Forbidden(SEAT_HELD)


def _occupant(match_id: int, position: int) -> AbstractBaseUser | None:
    seat = Seat.objects.filter(match_id=match_id, position=position).select_related("user").first()
    return seat.user if seat else None


# --- chat ---------------------------------------------------------------------------------------------


def message_hide(*, moderator: AbstractBaseUser, message_id: int, reason: str) -> ModerationAction:
    """Hide a chat message from everyone but moderators; the match log says a message was hidden."""
    _require(moderator, permissions.CHAT)
    reason = _reason(reason)
    with transaction.atomic():
        message = ChatMessage.objects.select_for_update().filter(pk=message_id).first()
        if message is None:
            raise NotFound("There is no such message.")
        _refuse_own_match(moderator, message.match_id)
        if message.hidden_at is not None:
            raise Conflict("This message is hidden already.")
        author = get_user_model().objects.get(pk=message.author_id)
        now = timezone.now()
        ChatMessage.objects.filter(pk=message.pk).update(
            hidden_at=now, hidden_by=moderator, hidden_reason=reason
        )
        line = games.match_log_note(
            match_id=message.match_id, text=f"A moderator hid a chat message by {author.username}: {reason}"
        )
        return _record(
            moderator=moderator,
            kind=Kind.HIDE_MESSAGE,
            summary=line.events[0]["text"],
            reason=reason,
            match_id=message.match_id,
            target_user=author,
            message=message,
            log_line=line,
        )


# --- users --------------------------------------------------------------------------------------------


def user_suspend(
    *,
    moderator: AbstractBaseUser,
    user_id: int,
    kind: str,
    duration: timedelta | None,
    reason: str,
    now: datetime | None = None,
) -> Suspension:
    """Keep a user out (no log-in, no session, no API token, no moves by e-mail) until the time is up;
    a ban may be for good (``duration`` None). The reason is shown to them when they try to log in."""
    _require(moderator, permissions.USERS)
    reason = _reason(reason)
    now = now or timezone.now()
    if kind not in Suspension.Kind.values:
        raise ServiceError("Choose a suspension or a ban.")
    if duration is None and kind == Suspension.Kind.SUSPENSION:
        raise ServiceError("A suspension needs a length; only a ban may be for good.")
    if duration is not None and not timedelta(hours=1) <= duration <= MAX_SUSPENSION:
        raise ServiceError("A suspension lasts from one hour to ten years.")
    User = get_user_model()
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=user_id).first()
        if user is None:
            raise NotFound("There is no such user.")
        if user.pk == moderator.pk:
            raise Forbidden("You cannot suspend yourself.")
        if user.is_superuser or (permissions.is_moderator(user) and not moderator.is_superuser):
            raise Forbidden("Only an administrator can suspend a moderator or an administrator.")
        running = [s for s in user.suspensions.filter(lifted_at__isnull=True) if s.in_force(now)]
        suspension = Suspension.objects.create(
            user=user,
            kind=kind,
            reason=reason,
            moderator=moderator,
            starts_at=now,
            ends_at=now + duration if duration is not None else None,
            was_active=user.is_active or any(s.was_active for s in running),
        )
        User.objects.filter(pk=user.pk).update(is_active=False)
        if suspension.ends_at is None:
            summary = f"Banned {user.username} for good."
        else:
            summary = f"{'Banned' if kind == Suspension.Kind.BAN else 'Suspended'} {user.username} until " + (
                f"{suspension.ends_at:%Y-%m-%d %H:%M} UTC."
            )
        _record(
            moderator=moderator,
            kind=Kind.BAN if kind == Suspension.Kind.BAN else Kind.SUSPEND,
            summary=summary,
            reason=reason,
            target_user=user,
            created_at=now,
        )
    return suspension


def suspension_lift(
    *, moderator: AbstractBaseUser, suspension_id: int, reason: str, now: datetime | None = None
) -> Suspension:
    _require(moderator, permissions.USERS)
    reason = _reason(reason)
    now = now or timezone.now()
    with transaction.atomic():
        suspension = (
            Suspension.objects.select_for_update().select_related("user").filter(pk=suspension_id).first()
        )
        if suspension is None:
            raise NotFound("There is no such suspension.")
        if not suspension.in_force(now):
            raise Conflict("This suspension is no longer in force.")
        suspension.lifted_at, suspension.lifted_by = now, moderator
        suspension.save(update_fields=["lifted_at", "lifted_by"])
        _reactivate_if_clear(suspension, now=now)
        _record(
            moderator=moderator,
            kind=Kind.LIFT,
            summary=f"Lifted the {suspension.get_kind_display().lower()} of {suspension.user.username}.",
            reason=reason,
            target_user=suspension.user,
            created_at=now,
        )
    return suspension


def suspensions_expire(*, now: datetime | None = None, user_id: int | None = None) -> int:
    """Close the suspensions whose time is up and let their users back in. Safe to run twice at once:
    each suspension is closed by one conditional update only."""
    now = now or timezone.now()
    due = Suspension.objects.filter(lifted_at__isnull=True, ends_at__lte=now)
    if user_id is not None:
        due = due.filter(user_id=user_id)
    done = 0
    for suspension in due.order_by("ends_at")[:1000]:
        with transaction.atomic():
            if Suspension.objects.filter(pk=suspension.pk, lifted_at__isnull=True).update(
                lifted_at=suspension.ends_at
            ):
                _reactivate_if_clear(suspension, now=now)
                done += 1
    return done


def _reactivate_if_clear(suspension: Suspension, *, now: datetime) -> None:
    running = Suspension.objects.filter(user_id=suspension.user_id, lifted_at__isnull=True).filter(
        Q(ends_at__isnull=True) | Q(ends_at__gt=now)
    )
    if suspension.was_active and not running.exists():
        get_user_model().objects.filter(pk=suspension.user_id).update(is_active=True)


# --- reports ------------------------------------------------------------------------------------------


def report_create(
    *,
    reporter: AbstractBaseUser,
    reason: str,
    details: str = "",
    reported_id: Any = None,
    match_id: Any = None,
    message_id: Any = None,
    now: datetime | None = None,
) -> Report:
    """A player reports another, about a match or a chat message, into the moderators' queue."""
    now = now or timezone.now()
    if not reporter.is_authenticated:
        raise Forbidden("Log in to report a player.")
    if reason not in Report.Reason.values:
        raise ServiceError("Choose what the report is about.")
    details = (details or "").replace("\x00", "").strip()
    if len(details) > 1000:
        raise ServiceError("Say it in at most 1000 characters.")
    User = get_user_model()
    with transaction.atomic():
        message = None
        if message_id not in (None, ""):
            message = (
                ChatMessage.objects.select_related("match", "author").filter(pk=_int(message_id)).first()
            )
            if message is None or not chat_access(match=message.match, user=reporter).can_read:
                raise NotFound("There is no such message.")
            reported, match = message.author, message.match
        else:
            match = None
            if match_id not in (None, ""):
                match = Match.objects.filter(pk=_int(match_id)).only("pk").first()
                if match is None:
                    raise NotFound("There is no such match.")
            reported = User.objects.filter(pk=_int(reported_id)).first() if reported_id else None
            if reported is None:
                raise ServiceError("Choose the player you are reporting.")
            if match is not None and not match.seats.filter(user=reported).exists():
                raise ServiceError(f"{reported.username} is not playing in this match.")
        if reported.pk == reporter.pk:
            raise ServiceError("You cannot report yourself.")
        if reason == Report.Reason.STALLING and match is None:
            raise ServiceError("Stalling is reported from the match where it happens.")
        # The reporter's row lock counts two reports sent at once one after the other.
        User.objects.select_for_update().filter(pk=reporter.pk).exists()
        same = Report.objects.filter(
            reporter=reporter,
            reported=reported,
            match=match,
            message=message,
            reason=reason,
            status__in=Report.UNRESOLVED,
        )
        if same.exists():
            raise Conflict("You have reported this already; a moderator will look at it.")
        if Report.objects.filter(reporter=reporter, created_at__gt=now - timedelta(days=1)).count() >= (
            REPORTS_PER_DAY
        ):
            raise RateLimited(f"At most {REPORTS_PER_DAY} reports a day; try again tomorrow.")
        return Report.objects.create(
            reporter=reporter, reported=reported, match=match, message=message, reason=reason, details=details
        )


def report_assign(*, moderator: AbstractBaseUser, report_id: int) -> Report:
    """The moderator takes the report: others see who is handling it."""
    _require(moderator, permissions.REPORTS)
    with transaction.atomic():
        report = _lock_report(report_id, moderator)
        if report.assigned_to_id == moderator.pk and report.status == Report.Status.ASSIGNED:
            raise Conflict("You are handling this report already.")
        report.assigned_to, report.status = moderator, Report.Status.ASSIGNED
        report.save(update_fields=["assigned_to", "status"])
        _record(
            moderator=moderator,
            kind=Kind.REPORT_ASSIGN,
            summary=f"Took report #{report.pk} about {report.reported.username}.",
            match_id=report.match_id,
            target_user=report.reported,
            report=report,
        )
    return report


def report_resolve(
    *, moderator: AbstractBaseUser, report_id: int, note: str, dismiss: bool = False
) -> Report:
    """Close the report with a note on what was done (or why nothing was)."""
    _require(moderator, permissions.REPORTS)
    note = (note or "").replace("\x00", "").strip()
    if not note:
        raise ServiceError("Write what was done, or why nothing was.")
    if len(note) > 2000:
        raise ServiceError("A note has at most 2000 characters.")
    with transaction.atomic():
        report = _lock_report(report_id, moderator)
        report.status = Report.Status.DISMISSED if dismiss else Report.Status.RESOLVED
        report.resolution, report.resolved_by, report.resolved_at = note, moderator, timezone.now()
        report.assigned_to = report.assigned_to or moderator
        report.save(update_fields=["status", "resolution", "resolved_by", "resolved_at", "assigned_to"])
        verb = "Dismissed" if dismiss else "Resolved"
        _record(
            moderator=moderator,
            kind=Kind.REPORT_DISMISS if dismiss else Kind.REPORT_RESOLVE,
            summary=f"{verb} report #{report.pk} about {report.reported.username}.",
            note=note,
            match_id=report.match_id,
            target_user=report.reported,
            report=report,
        )
    return report


def _lock_report(report_id: Any, moderator: AbstractBaseUser) -> Report:
    report = Report.objects.select_for_update().select_related("reported").filter(pk=_int(report_id)).first()
    if report is None:
        raise NotFound("There is no such report.")
    if report.reported_id == moderator.pk:
        raise Forbidden("This report is about you: another moderator must handle it.")
    if report.status not in Report.UNRESOLVED:
        raise Conflict(f"Report #{report.pk} is {report.get_status_display().lower()} already.")
    return report


def _report_or_none(report_id: Any) -> Report | None:
    if report_id in (None, ""):
        return None
    report = Report.objects.filter(pk=_int(report_id)).first()
    if report is None:
        raise NotFound("There is no such report.")
    return report


# --- internals ----------------------------------------------------------------------------------------


def _require(user: AbstractBaseUser, perm: str) -> None:
    if not permissions.can(user, perm):
        raise Forbidden("Only moderators can do that.")


def _reason(reason: str) -> str:
    """A public reason: one line, required, short enough for the log."""
    reason = " ".join(_CONTROL.sub(" ", reason or "").split())
    if not reason:
        raise ServiceError("Give a reason: the players read it in the match log.")
    if len(reason) > MAX_REASON:
        raise ServiceError(f"A reason has at most {MAX_REASON} characters.")
    return reason


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise NotFound("There is no such item.") from None


def _record(*, moderator: AbstractBaseUser, kind: str, summary: str, **fields: Any) -> ModerationAction:
    return ModerationAction.objects.create(moderator=moderator, kind=kind, summary=summary[:400], **fields)


def moderator_appoint(*, user: AbstractBaseUser, appoint: bool = True) -> None:
    """Into the Moderators group with staff status (the admin needs it), or out of it again.
    Staff status stays on removal when the user has other admin work (a superuser, another group)."""
    with transaction.atomic():
        group = moderators_group()
        if appoint:
            user.groups.add(group)
            if not user.is_staff:
                user.is_staff = True
                user.save(update_fields=["is_staff"])
        else:
            user.groups.remove(group)
            if user.is_staff and not user.is_superuser and not user.groups.exists():
                user.is_staff = False
                user.save(update_fields=["is_staff"])


def moderators_group() -> Group:
    """The Moderators group (made by a data migration), made again with its permissions if it is gone."""
    group, created = Group.objects.get_or_create(name=permissions.GROUP)
    if created:
        wanted = Q()
        for name in permissions.GROUP_PERMISSIONS:
            label, codename = name.split(".")
            wanted |= Q(content_type__app_label=label, codename=codename)
        group.permissions.add(*Permission.objects.filter(wanted))
    return group
