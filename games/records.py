"""Game records: one JSON document per ended match, and the verifier that replays it from the seed.

A record holds the game, its options and seats, every line of the log (the move in notation and as data,
the events, the number of the random step it drew from, a digest of the public view after it) and the
revealed seed. ``record_verify`` needs nothing else: it deals the opening position from step 0 of the
seed, replays every line in order, draws each chance step and skipped turn again from its step number,
and compares what it gets with what the record says, naming the first line that differs. The format is
documented in ``seeds/records.md``.

Pure: no Django (the management command, the pages and anyone with a downloaded record use it alike).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from games.engines import registry
from games.engines.base import Engine, Event, IllegalMove
from games.rng import STREAM, seed_commitment, step_stream

FORMAT = "wallsite-match-record"
VERSION = 1
KINDS = ("move", "chance", "skip", "out", "takeback", "note")
# A line of these kinds drew from a numbered random step.
DRAWING = ("chance", "skip")


class RecordInvalid(ValueError):
    """The document is not a record this site can read; the message says why."""


def canonical(value: Any) -> str:
    """The one JSON text of ``value`` that digests are taken of: sorted keys, no spaces, ASCII."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def plain(value: Any) -> Any:
    """``value`` as it comes back from storage as JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


def view_digest(view: dict[str, Any]) -> str:
    """SHA-256 of a public view's canonical JSON: the record's short proof of each position."""
    return hashlib.sha256(canonical(plain(view)).encode("ascii")).hexdigest()


# --- writing ---------------------------------------------------------------------------------------


def line_kind(*, seat: int | None, move: Any, notation: str, events: list[dict[str, Any]], drew: bool) -> str:
    """What a log line of the site did to the position, for the record: a seat's ``move``, a ``chance``
    step, a ``skip`` (a turn timed out and passed, maybe with a random default move), a seat going
    ``out`` (resigned, forfeited), a ``takeback`` (the players agreed to take back that seat's last
    move: the position goes back to the one before it), or a ``note`` that changed nothing."""
    first = events[0].get("kind") if events else None
    if move is not None:
        return "move"
    if first == "takeback" and seat is not None:
        return "takeback"
    if first == "seat_out":
        return "out"
    if notation == "timeout" and first == "timeout":
        return "skip"
    if seat is None and notation == "" and (drew or first not in ("moderation", "vacation", "timeout")):
        return "chance"
    return "note"


def record_build(
    *,
    match: dict[str, Any],
    seats: list[dict[str, Any]],
    lines: list[dict[str, Any]],
    engine: Engine,
    seed: str,
    commitment: str,
) -> dict[str, Any]:
    """The record of an ended match from its plain data: ``match`` (id, game, name, options, seat_count,
    status, result, created_at, started_at, finished_at), its ``seats`` and its log ``lines`` (seq, at,
    seat, player, move, notation, chance_step, events, and ``state`` after the line, of which only the
    public view's digest is kept)."""
    out_lines = []
    for line in lines:
        drew = line.get("chance_step") is not None
        kind = line_kind(
            seat=line["seat"], move=line["move"], notation=line["notation"], events=line["events"], drew=drew
        )
        state = line.get("state")
        out_lines.append(
            {
                "seq": line["seq"],
                "at": line["at"],
                "seat": line["seat"],
                "player": line["player"],
                "kind": kind,
                "notation": line["notation"],
                "move": line["move"],
                "chance_step": line.get("chance_step"),
                "events": line["events"],
                "view_sha256": view_digest(engine.public_view(state)) if state else None,
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "match": match,
        "seats": seats,
        "random": {"stream": STREAM if commitment else "", "commitment": commitment, "seed": seed},
        "lines": out_lines,
    }


# --- reading and checking --------------------------------------------------------------------------


@dataclass
class LineCheck:
    """One line of the record replayed: what it says, what the replay gave, and whether they agree."""

    seq: int
    kind: str
    seat: int | None
    player: str
    notation: str
    chance_step: int | None
    recorded: list[str]  # the texts of the events the record gives
    recomputed: list[str] = field(default_factory=list)
    ok: bool = True
    problem: str = ""


@dataclass
class Verification:
    """The outcome of ``record_verify``: ``ok`` when every line agrees with its replay; otherwise
    ``problem`` says what differs and ``failed_at`` where ("seed", "record", "setup" or "line 12")."""

    ok: bool
    verifiable: bool
    problem: str = ""
    failed_at: str = ""
    # The record was played under other rules than today's (the engine's ``rules_version`` differs, or
    # the match is older than the versions): a replay that differs then says so, and no more.
    rules_changed: bool = False
    game: str = ""
    commitment: str = ""
    seed: str = ""
    lines: list[LineCheck] = field(default_factory=list)
    # The position after the last line replayed (the one asked for by ``upto``), server-side only.
    state: dict[str, Any] | None = None
    engine: Engine | None = None

    @property
    def chance_lines(self) -> list[LineCheck]:
        return [line for line in self.lines if line.kind in DRAWING]


def record_load(text: str | bytes) -> dict[str, Any]:
    """A record from its JSON text; RecordInvalid with a reason for anything else."""
    try:
        record = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise RecordInvalid(f"This is not JSON: {exc}.") from None
    _shape_check(record)
    return record


def _shape_check(record: Any) -> None:
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordInvalid(f'This is not a match record of this site (its "format" is not {FORMAT!r}).')
    if record.get("version") != VERSION:
        raise RecordInvalid(
            f"This record is of version {record.get('version')!r}; this site reads {VERSION}."
        )
    match, random_part, lines = record.get("match"), record.get("random"), record.get("lines")
    if not isinstance(match, dict) or not isinstance(random_part, dict) or not isinstance(lines, list):
        raise RecordInvalid('A record has a "match" object, a "random" object and a "lines" list.')
    if not isinstance(match.get("game"), str) or not isinstance(match.get("options"), dict):
        raise RecordInvalid('The record\'s "match" needs its "game" and its "options".')
    count = match.get("seat_count")
    if type(count) is not int or not 1 <= count <= 16:
        raise RecordInvalid('The record\'s "match" needs its "seat_count", a small whole number.')
    rules = match.get("rules_version")
    if rules is not None and (type(rules) is not int or rules < 1):
        raise RecordInvalid('The record\'s "rules_version" is a whole number from 1, or null.')
    for key in ("commitment", "seed"):
        if not isinstance(random_part.get(key), str):
            raise RecordInvalid(f'The record\'s "random" needs its "{key}" (a text, empty if there is none).')
    for index, line in enumerate(lines, start=1):
        where = f"Line {index} of the record"
        if not isinstance(line, dict):
            raise RecordInvalid(f"{where} is not an object.")
        if line.get("kind") not in KINDS:
            raise RecordInvalid(
                f"{where} has the kind {line.get('kind')!r}; a kind is one of {', '.join(KINDS)}."
            )
        seat = line.get("seat")
        if seat is not None and (type(seat) is not int or not 0 <= seat < count):
            raise RecordInvalid(f"{where} names the seat {seat!r}, which the match does not have.")
        step = line.get("chance_step")
        if step is not None and (type(step) is not int or step < 0):
            raise RecordInvalid(f"{where} has the random step {step!r}; a step is a whole number.")
        events = line.get("events")
        if not isinstance(events, list) or not all(
            isinstance(event, dict) and isinstance(event.get("kind"), str) for event in events
        ):
            raise RecordInvalid(f'{where} needs its "events", a list of objects with a "kind".')
        if type(line.get("seq")) is not int or not isinstance(line.get("notation", ""), str):
            raise RecordInvalid(f'{where} needs its "seq" (a number) and its "notation" (a text).')


def record_verify(record: dict[str, Any], *, upto: int | None = None) -> Verification:
    """Replay the record from its seed and compare every line with it; stop at the first that differs
    (or after ``upto`` lines, for a replay page: the position there is ``state``)."""
    try:
        _shape_check(record)
    except RecordInvalid as exc:
        return Verification(ok=False, verifiable=False, problem=str(exc), failed_at="record")
    match, randomness = record["match"], record["random"]
    result = Verification(
        ok=False,
        verifiable=False,
        game=match["game"],
        commitment=randomness["commitment"],
        seed=randomness["seed"],
    )
    try:
        engine = registry.get_engine(match["game"])
    except registry.UnknownGame as exc:
        result.problem, result.failed_at = str(exc), "record"
        return result
    result.engine = engine
    if not randomness["commitment"] or not randomness["seed"]:
        result.problem = (
            "This match was played before seeds were committed to, or has not ended: its dice cannot be "
            "verified."
        )
        result.failed_at = "seed"
        return result
    result.verifiable = True
    try:
        committed = seed_commitment(randomness["seed"]) == randomness["commitment"].lower()
    except ValueError as exc:
        committed = False
        result.problem = f"The revealed seed is not a seed: {exc}"
    if not committed:
        result.problem = result.problem or (
            "The revealed seed does not match the commitment published when the match began: its SHA-256 "
            "is not the commitment."
        )
        result.failed_at = "seed"
        return result
    try:
        state = plain(
            engine.new_state(
                seats=match["seat_count"], options=match["options"], rng=step_stream(randomness["seed"], 0)
            )
        )
    except Exception as exc:  # an engine refusing the record's options: say so, whatever it raised
        result.problem = f"The opening position cannot be dealt from these options: {exc}"
        result.failed_at = "setup"
        return _rules_checked(result, engine, match)
    if upto == 0:
        result.ok, result.state = True, state
        return result
    for check, state_after in _replay(engine, record, state):
        result.lines.append(check)
        if not check.ok:
            result.problem, result.failed_at = check.problem, f"line {check.seq}"
            result.state = state
            return _rules_checked(result, engine, match)
        state = state_after
        if upto is not None and len(result.lines) >= upto:
            break
    result.ok = True
    result.state = state
    return result


def _rules_checked(result: Verification, engine: Engine, match: dict[str, Any]) -> Verification:
    """A replay that differs, told apart: under today's rules it is a record that does not agree with
    its seed; under rules changed since the match was played, the difference may be the change."""
    played = match.get("rules_version")
    if played == engine.rules_version:
        return result
    result.rules_changed = True
    edition = (
        f"version {played} of {engine.title}'s rules on this site"
        if played is not None
        else f"{engine.title}'s rules as they were before the site numbered their versions"
    )
    result.problem = (
        f"This match was played under {edition}, and today's rules (version {engine.rules_version}) "
        f"replay it differently from its {result.failed_at}. The difference may be the change of rules, "
        f"so the replay proves nothing either way. What it found: {result.problem}"
    )
    return result


def _replay(
    engine: Engine, record: dict[str, Any], state: dict[str, Any]
) -> Iterator[tuple[LineCheck, dict[str, Any]]]:
    seed = record["random"]["seed"]
    playing = set(range(record["match"]["seat_count"]))
    next_step = 1  # step 0 dealt the opening position
    # The seat and seq of the last line that changed the position, and the position before it: what a
    # takeback line goes back to.
    undo: _Undo | None = None
    for line in record["lines"]:
        kind, seat = line["kind"], line.get("seat")
        events = line["events"]
        check = LineCheck(
            seq=line["seq"],
            kind=kind,
            seat=seat,
            player=str(line.get("player", "")),
            notation=line.get("notation", ""),
            chance_step=line.get("chance_step"),
            recorded=[str(event.get("text", "")) for event in events],
        )
        try:
            if kind == "takeback":
                after, made, compared = _takeback_replay(line, undo), _note_events(line), 0
            else:
                after, made, compared = _line_replay(
                    engine, line, state, seed=seed, playing=playing, step=next_step
                )
        except _Differs as exc:
            check.ok, check.problem = False, f"Line {line['seq']}: {exc}"
            yield check, state
            return
        if kind in DRAWING:
            next_step += 1
        check.recomputed = [event.text for event in made]
        wanted = plain([event.to_dict() for event in made])
        if plain(events[compared:]) != wanted:
            check.ok = False
            check.problem = (
                f"Line {line['seq']}"
                + (f" (random step {line['chance_step']})" if kind in DRAWING else "")
                + f": the record says {_texts(events[compared:])}, but replaying it gives {_texts(wanted)}."
            )
        elif line.get("view_sha256") != view_digest(engine.public_view(after)):
            check.ok = False
            check.problem = (
                f"Line {line['seq']}: the position the record gives after it is not the one the replay "
                "reaches."
            )
        yield check, after
        if not check.ok:
            return
        if kind == "move":
            undo = _Undo(seq=line["seq"], seat=seat, before=state)
        elif kind != "note":
            undo = None
        state = after


class _Differs(Exception):
    pass


@dataclass(frozen=True)
class _Undo:
    seq: int
    seat: int | None
    before: dict[str, Any]


def _takeback_replay(line: dict[str, Any], undo: _Undo | None) -> dict[str, Any]:
    """The position a takeback line goes back to: the one before the seat's move it names, which must be
    the last change to the position (nothing drawn or played since)."""
    if line.get("chance_step") is not None:
        raise _Differs("it names a random step, but a takeback draws nothing.")
    data = line["events"][0].get("data") if line["events"] else None
    seq = data.get("move_seq") if isinstance(data, dict) else None
    if undo is None or undo.seat != line.get("seat") or seq != undo.seq:
        raise _Differs("it takes back a move that is not that seat's last change to the position.")
    return undo.before


def _line_replay(
    engine: Engine,
    line: dict[str, Any],
    state: dict[str, Any],
    *,
    seed: str,
    playing: set[int],
    step: int,
) -> tuple[dict[str, Any], list[Event], int]:
    """The position after ``line``, the events the replay made, and from which of the recorded events on
    they are compared (a skip's and a leaving seat's first event is the site's own line about it)."""
    kind, seat = line["kind"], line.get("seat")
    if kind in DRAWING:
        if line.get("chance_step") != step:
            raise _Differs(
                f"it names the random step {line.get('chance_step')!r}, but the next step is {step}: "
                "a step was left out or drawn twice."
            )
    elif line.get("chance_step") is not None:
        raise _Differs("it names a random step, but a line of this kind draws nothing.")
    try:
        if kind == "move":
            move = line.get("move")
            if seat is None or seat not in engine.actors(state):
                raise _Differs("the seat that moves is not one whose move the position awaits.")
            try:
                after, made = engine.apply(state, seat, move)
            except IllegalMove as exc:
                raise _Differs(f"the move {line.get('notation')!r} is not legal there: {exc}") from None
            if engine.format_move(move) != line.get("notation"):
                written = engine.format_move(move)
                raise _Differs(f"the notation {line.get('notation')!r} is not that of the move, {written!r}.")
            return plain(after), made, 0
        if kind == "chance":
            if not engine.chance_pending(state):
                raise _Differs("the record has a chance step where the position awaits none.")
            after, made = engine.resolve_chance(state, step_stream(seed, step))
            return plain(after), made, 0
        if kind == "skip":
            if seat is None:
                raise _Differs("a skipped turn names no seat.")
            after, made = engine.skip(state, seat, step_stream(seed, step))
            return plain(after), made, 1
        if kind == "out":
            if seat is None or seat not in playing:
                raise _Differs("the seat that leaves is not playing.")
            playing.discard(seat)
            if len(playing) >= 2:
                try:
                    after, made = engine.eliminate(state, seat)
                    return plain(after), made, 1
                except NotImplementedError:
                    pass  # the game cannot go on without the seat: the match ended where it stood
            return state, [], 1
        return state, _note_events(line), 0
    except _Differs:
        raise
    except Exception as exc:  # the engine choked on what the record gave it: the record is at fault
        raise _Differs(f"replaying it fails ({type(exc).__name__}: {exc}).") from None


def _note_events(line: dict[str, Any]) -> list[Event]:
    """A note changes nothing: its events are the site's own words, taken as they are."""
    return [Event.from_dict(raw) for raw in line["events"]]


def _texts(events: list[Any]) -> str:
    texts = [str(event.get("text", "")) for event in events]
    return "; ".join(repr(text) for text in texts) if texts else "no events"
