"""Reads for pages and the API. A viewer only ever gets the public view plus its own seat's hand."""

from __future__ import annotations

import logging
import random
import re
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Exists, F, Max, OuterRef, Prefetch, QuerySet, Subquery, Sum

from games import livekeys
from games.engines import registry
from games.engines.base import Engine, Event, has_secrets
from games.errors import NotFound
from games.models import Analysis, Forecast, HiddenHand, Match, Seat, Turn, match_key
from games.services.analysing import position_before


@dataclass(frozen=True)
class LogLine:
    seq: int
    seat: int | None
    player: str
    notation: str
    events: list[str]
    at: Any


@dataclass(frozen=True)
class MatchView:
    match: Match
    seats: list[Seat]
    seat: Seat | None  # the viewer's seat, if any
    view: dict[str, Any]  # engine view for that seat (public part + its own hand)
    actors: frozenset[int]
    open_turns: dict[int, Turn]

    @property
    def viewer_position(self) -> int | None:
        return self.seat.position if self.seat else None

    @property
    def my_turn(self) -> bool:
        return (
            self.seat is not None
            and self.seat.status == Seat.Status.PLAYING
            and self.match.status == Match.Status.ACTIVE
            and self.seat.position in self.actors
        )


def match_get(*, match_id: Any, state: bool = True) -> Match:
    """The match for a reader: without the random generator's state, kilobytes no page ever needs, and
    without the engine's state unless ``state`` (read on first use then)."""
    deferred = ("rng_state",) if state else ("rng_state", "engine_state")
    try:
        return Match.objects.defer(*deferred).get(pk=match_key(match_id))
    except Match.DoesNotExist:
        raise NotFound("There is no such match.") from None


def match_view_for(*, match_id: Any, user: AbstractBaseUser | None, state: bool = True) -> MatchView:
    """What this user may see of the match: the public view, plus its own hand when seated. Without
    ``state``, the engine's full state is read only if something asks for it (a page whose parts are
    in the cache does not)."""
    match = match_get(match_id=match_id, state=state)
    # When each seat's plan last changed, not the plan: a seat without one needs no look for it.
    seats = list(
        match.seats.select_related("user", "hidden_hand").annotate(plan_updated_at=F("forecast__updated_at"))
    )
    seat = None
    if user is not None and user.is_authenticated:
        seat = next((s for s in seats if s.user_id == user.pk), None)
    view: dict[str, Any] = dict(match.public_view or {})
    private: dict[str, Any] = {}
    if seat is not None:
        try:
            private = seat.hidden_hand.data
        except HiddenHand.DoesNotExist:
            private = {}
    view["private"] = private
    # Only turns opened by the version read above: one opened by a move committed since would otherwise
    # say "your turn" next to a position in which it is not (and which has no legal move for the seat).
    by_id = {s.pk: s for s in seats}
    open_turns = {}
    for turn in match.turns.filter(closed_at__isnull=True, number__lte=match.version).order_by():
        turn.seat = by_id[turn.seat_id]
        open_turns[turn.seat.position] = turn
    actors = frozenset(open_turns) if match.status == Match.Status.ACTIVE else frozenset()
    return MatchView(match=match, seats=seats, seat=seat, view=view, actors=actors, open_turns=open_turns)


def match_log_for(
    *,
    match: Match,
    position: int | None,
    first: int = 1,
    last: int | None = None,
    seats: list[Seat] | None = None,
) -> list[LogLine]:
    """The game log (lines ``first`` to ``last`` by seq) with every event filtered exactly like the view.
    ``seats``: the match's seats with their players, when the caller has read them already."""
    if seats is None:
        seats = list(match.seats.select_related("user"))
    # A match has a few seats and its log hundreds of lines: its seats are named from the list, rather
    # than joined to every line with all of their player's columns.
    by_id = {seat.pk: seat for seat in seats}
    lines = []
    moves = match.moves.filter(seq__gte=first)
    if last is not None:
        moves = moves.filter(seq__lte=last)
    for move in moves.defer("state_after"):
        seat = by_id.get(move.seat_id)
        events = [Event.from_dict(raw) for raw in move.events]
        lines.append(
            LogLine(
                seq=move.seq,
                seat=seat.position if seat else None,
                player=seat.player_name if seat else "",
                notation=move.notation if move.notation_readable_by(position) else "",
                events=[event.text for event in events if event.visible_for(position)],
                at=move.created_at,
            )
        )
    return lines


def matches_open() -> QuerySet[Match]:
    return (
        Match.objects.filter(status=Match.Status.OPEN)
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
        .order_by("-created_at")
    )


def matches_awaiting_count(*, user: AbstractBaseUser) -> int:
    return (
        Turn.objects.filter(seat__user=user, closed_at__isnull=True, match__status=Match.Status.ACTIVE)
        .values("match")
        .distinct()
        .count()
    )


def turns_awaiting(*, user: AbstractBaseUser) -> QuerySet[Turn]:
    """The user's own open turns in matches in play, soonest deadline first.

    A seat the computer plays for is left out: nothing there awaits the player until they return.
    """
    return (
        Turn.objects.filter(
            seat__user=user,
            seat__status=Seat.Status.PLAYING,
            seat__autopilot=False,
            closed_at__isnull=True,
            match__status=Match.Status.ACTIVE,
        )
        .select_related("match", "seat")
        .defer("match__engine_state", "match__rng_state", "match__public_view")
        .order_by(F("deadline").asc(nulls_last=True), "started_at", "pk")
    )


def matches_for_user(*, user: AbstractBaseUser) -> list[Match]:
    """The user's matches, each carrying ``awaiting_me`` and ``my_deadline`` (when the user's open turn
    there runs out; None without a turn or a time limit), ``to_move`` (the seats whose move is awaited,
    in seat order) and ``deadline`` (the user's own when it awaits them, else the soonest of the others').
    Matches awaiting the user come first, the most urgent first, then those in play, then open ones,
    then the rest; one query plus the seats and the open turns, however many rows."""
    awaiting = Turn.objects.filter(match=OuterRef("pk"), seat__user=user, closed_at__isnull=True)
    matches = list(
        Match.objects.filter(seats__user=user)
        .annotate(
            awaiting_me=Exists(awaiting),
            my_deadline=Subquery(awaiting.order_by("deadline").values("deadline")[:1]),
        )
        .defer("engine_state", "rng_state", "public_view")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user")),
            # As on the match page: only turns opened by the version the row shows.
            Prefetch(
                "turns",
                queryset=Turn.objects.filter(closed_at__isnull=True, number__lte=F("match__version")),
                to_attr="open_turns",
            ),
        )
        .order_by("-updated_at")
        .distinct()
    )
    for match in matches:
        _movers_note(match)
    rank = {Match.Status.ACTIVE: 1, Match.Status.OPEN: 2}

    def order(match: Match) -> tuple:
        if match.awaiting_me:
            no_deadline = match.my_deadline is None
            return (0, no_deadline, match.my_deadline.timestamp() if not no_deadline else 0.0)
        return (rank.get(match.status, 3), False, 0.0)

    return sorted(matches, key=order)


def _movers_note(match: Match) -> None:
    """Set ``to_move`` and ``deadline`` on a row of ``matches_for_user`` from its prefetched rows."""
    by_id = {seat.pk: seat for seat in match.seats.all()}
    active = match.status == Match.Status.ACTIVE
    turns = [turn for turn in match.open_turns if turn.seat_id in by_id] if active else []
    match.to_move = sorted((by_id[turn.seat_id] for turn in turns), key=lambda seat: seat.position)
    others = [turn.deadline for turn in turns if turn.deadline is not None]
    match.deadline = match.my_deadline if match.awaiting_me else min(others, default=None)


def matches_live_key(*, user_id: Any) -> str:
    """What My matches and the header badge show changes only when this does: one aggregate over the
    user's matches. Every service that changes a match's row (a move, an expiry, a join, a chat message)
    sets ``updated_at`` or bumps ``version`` or ``log_length`` (a deadline extended writes a log line);
    the sum of their numbers tells one set of matches from another that a seat left and one taken
    within the same instant would otherwise leave alike."""

    def read() -> str:
        row = Match.objects.filter(seats__user_id=user_id).aggregate(
            count=Count("pk"),
            ids=Sum("pk"),
            versions=Sum("version"),
            lines=Sum("log_length"),
            latest=Max("updated_at"),
        )
        latest = row["latest"].timestamp() if row["latest"] else 0
        sums = ".".join(str(row[name] or 0) for name in ("ids", "versions", "lines"))
        return f"u{user_id}.{row['count']}.{sums}.{latest}"

    # Kept in the cache until one of the user's matches changes (games/livekeys.py): the badge's poll
    # on every open page, and every page's ETag, then read no row for it.
    return livekeys.cached_key(livekeys.user_scope(user_id), read)


def match_live_key(*, match_id: Any) -> str | None:
    """What the match page shows changes only when this does: the match's row read by its key. None
    when there is no such match. Services that change another table the page shows (a seat, a chat
    message, a returning player) set the row's ``updated_at`` in the same transaction, and every
    service that changes the page calls ``livekeys.match_changed``."""
    try:
        key = match_key(match_id)
    except NotFound:
        return None

    def read() -> str | None:
        row = Match.objects.filter(pk=key).values_list("pk", "version", "log_length", "status", "updated_at")
        found = list(row)
        return _live_key(*found[0]) if found else None

    # Kept in the cache until the match changes (games/livekeys.py): most polls read no row at all.
    return livekeys.cached_key(key, read)


def match_cache_id(match: Match) -> str:
    """How the cache names a match in the keys of what it shows: its number and when it was made, since a
    test database gives a new match the number of a removed one."""
    made = match.created_at.timestamp() if match.created_at else 0
    return f"{match.pk}.{made}"


def match_live_key_of(match: Match) -> str:
    """``match_live_key`` of a match already read (the page embeds it, so its first poll can be a 304)."""
    return _live_key(match.pk, match.version, match.log_length, match.status, match.updated_at)


def _live_key(pk: int, version: int, log_length: int, status: str, updated_at: Any) -> str:
    return f"m{pk}.{version}.{log_length}.{status}.{updated_at.timestamp()}"


def most_urgent_awaiting(*, user: AbstractBaseUser, limit: int) -> list[Match]:
    """Up to ``limit`` matches where the user's move is awaited, the most urgent (soonest deadline)
    first: where the "Next match waiting for you" button leads. One query a match, since a user holding
    several seats of a match has a turn there for each."""
    matches: list[Match] = []
    for _ in range(limit):
        turn = turns_awaiting(user=user).exclude(match__in=[match.pk for match in matches]).first()
        if turn is None:
            break
        matches.append(turn.match)
    return matches


def rematch_for(*, match: Match) -> Match | None:
    """The rematch offered after ``match``, with its seats and their players, or None."""
    return (
        Match.objects.filter(rematch_of=match)
        .select_related("created_by")
        .defer("engine_state", "rng_state", "public_view")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
        .first()
    )


def starting_board(*, game: str, seats: int, options: dict[str, str]) -> str:
    """The SVG of a new match's first position as a spectator would see it (the create form's preview).

    The deal is random; only the public part is drawn, so the preview shows the board and no cards.
    """
    engine = registry.get_engine(game)
    state = engine.new_state(seats=seats, options=options, rng=random.Random(0))
    return engine.render_svg(engine.view(state, None), None, interactive=False)


@dataclass(frozen=True)
class ReplayStep:
    """The board after log line ``seq`` as one viewer may see it, and that line."""

    seq: int
    last: int
    svg: str
    line: LogLine


def replay_step(
    *, match: Match, position: int | None, seq: int, seats: list[Seat] | None = None
) -> ReplayStep | None:
    """Step ``seq`` of the match's history for the viewer at ``position``: the public view of the stored
    position plus that seat's own part of it, exactly as the match page showed it then. None when the
    log is empty. ``seats`` as for ``match_log_for``."""
    last = match.log_length
    if last == 0:
        return None
    seq = min(max(seq, 1), last)
    move = match.moves.filter(seq=seq).only("state_after").first()
    if move is None:
        return None
    engine = match.engine
    view = engine.public_view(move.state_after)
    view["private"] = engine.private_view(move.state_after, position) if position is not None else {}
    svg = engine.render_svg(view, position, interactive=False)
    line = match_log_for(match=match, position=position, first=seq, last=seq, seats=seats)[0]
    return ReplayStep(seq=seq, last=last, svg=svg, line=line)


_SEAT_NAME = re.compile(r"\{seat(\d+)\}")
log = logging.getLogger(__name__)


def match_prompt(*, mv: MatchView) -> str:
    """The sentence above the board for this viewer while the match is in play: the engine's, worked out
    from the viewer's own view alone, with each seat it names replaced by its player ("you" for the
    viewer). Empty when the match is not in play."""
    if mv.match.status != Match.Status.ACTIVE or not mv.view:
        return ""
    try:
        text = mv.match.engine.prompt(mv.view, mv.viewer_position)
    except (KeyError, IndexError, TypeError):
        # A view stored before the engine's view had a key the prompt reads: the page goes without it.
        log.warning("No prompt for match %s at version %s", mv.match.pk, mv.match.version, exc_info=True)
        return ""
    names = {seat.position: seat.player_name for seat in mv.seats}

    def name(found: re.Match[str]) -> str:
        position = int(found[1])
        if position == mv.viewer_position:
            return "you"
        return names.get(position) or f"seat {position + 1}"

    text = _SEAT_NAME.sub(name, text)
    # A sentence may open with a seat; a player's name keeps its own case, "you" does not.
    return f"Y{text[1:]}" if text.startswith("you ") else text


def seat_visiting(*, match_id: Any, user: AbstractBaseUser) -> Seat | None:
    """The user's seat in the match, or None, with ``plan_updated_at``: when its conditional moves last
    changed (None without any). What a page load reads before anything else, in one query: the seat
    for presence, the plan for the page's ETag (only its owner sees it, so no key of the match names it)."""
    if not user.is_authenticated:
        return None
    seats = Seat.objects.filter(match_id=match_id, user_id=user.pk)
    return seats.annotate(plan_updated_at=F("forecast__updated_at")).first()


def forecast_for(*, match: Match, seat: Seat | None) -> Forecast | None:
    """The seat's own conditional moves, for its owner's eyes only, if it has some for the match as it
    is now: a plan made at another version is void, and shown to nobody."""
    if seat is None:
        return None
    # The seats of match_view_for say when their plan last changed: None, there is none to look for.
    if hasattr(seat, "plan_updated_at") and seat.plan_updated_at is None:
        return None
    return Forecast.objects.filter(seat=seat, version=match.version).first()


# --- post-game analysis ----------------------------------------------------------------------------------


def analysis_of(*, match: Match) -> Analysis | None:
    return Analysis.objects.filter(match=match).first()


@dataclass(frozen=True)
class ReplayMove:
    """A seat's move in the replay's move list, with the analysis's rating where the viewer may see it."""

    seq: int
    seat: int | None
    player: str
    notation: str
    mark: str = ""
    loss: float = 0.0
    best: str = ""
    best_move: dict[str, Any] | None = None


def replay_moves(*, match: Match, position: int | None, analysis: Analysis | None) -> list[ReplayMove]:
    """The seats' moves the viewer at ``position`` may read, each with its mark once the analysis is done.

    A rating comes from the mover's own view; in a game with secrets it would tell what the mover held
    (a "??" says a far better card was in hand), so there only the mover sees the marks of its moves.
    """
    rated: dict[int, dict[str, Any]] = {}
    if analysis is not None and analysis.status == Analysis.Status.DONE:
        rated = {entry["seq"]: entry for entry in analysis.marks}
    secrets = has_secrets(match.engine)
    out = []
    for line in (
        match.moves.filter(seat__isnull=False, move__isnull=False)
        .select_related("seat__user")
        .defer("state_after", "events")
    ):
        if not line.notation_readable_by(position):
            continue
        mover = line.seat.position
        entry = rated.get(line.seq)
        shown = entry is not None and entry["mark"] and (not secrets or mover == position)
        out.append(
            ReplayMove(
                seq=line.seq,
                seat=mover,
                player=line.seat.player_name,
                notation=line.notation,
                mark=entry["mark"] if shown else "",
                loss=entry["loss"] if shown else 0.0,
                best=entry["best"] if shown else "",
                best_move=entry["best_move"] if shown else None,
            )
        )
    return out


@dataclass(frozen=True)
class Suggestion:
    """The position a marked move was played in, drawn for the viewer, and the bot's choice there as the
    board script draws a move being chosen (its clicks, its notation, its preview shapes)."""

    svg: str
    choice: dict[str, Any]


def replay_suggestion(*, match: Match, position: int | None, move: ReplayMove) -> Suggestion | None:
    """The bot's choice for a marked move, drawn on the position before it: the viewer's view of that
    position (``replay_moves`` shows a mark only to a viewer who may see the choice), drawn for the mover
    so that its own pieces can be shown moving."""
    if not move.best_move or move.seat is None:
        return None
    state = position_before(match=match, seq=move.seq)
    if state is None:
        return None
    engine = match.engine
    view = engine.public_view(state)
    view["private"] = engine.private_view(state, position) if position is not None else {}
    choice = move_choice(engine=engine, view=view, seat=move.seat, move=move.best_move)
    return Suggestion(svg=engine.render_svg(view, move.seat, interactive=True), choice=choice)


def legal_choices(
    *, engine: Engine, state: dict[str, Any], view: dict[str, Any], seat: int
) -> list[dict[str, Any]]:
    """The seat's legal moves in ``state`` as the board script needs them (see move_choice)."""
    return [
        move_choice(engine=engine, view=view, seat=seat, move=move, listed=True)
        for move in engine.legal_moves(state, seat)
    ]


def move_choice(
    *, engine: Engine, view: dict[str, Any], seat: int, move: dict[str, Any], listed: bool = False
) -> dict[str, Any]:
    """A move as the board script needs it (the match page's legal moves, a conditional line being
    planned, the analysis's suggestion): its clicks, its notation and, when the engine has any, the
    shapes to draw while it is chosen but not sent (from this seat's view only). ``listed``: the move
    comes from the engine's own ``legal_moves``, so its shape needs no check."""
    if listed:
        path, text = engine.listed_click_path(move), engine.listed_notation(move)
    else:
        path, text = engine.click_path(move), engine.format_move(move)
    choice: dict[str, Any] = {"path": path, "text": text}
    preview = engine.move_preview(view, seat, move)
    if preview:
        choice["preview"] = preview
    return choice
