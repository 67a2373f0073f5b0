"""What the API reads and writes.

Input serializers check types and bounds only; the rules (which games, which options, which clock
settings, which moves) stay in the services, which answer with the same messages as on the web pages.

Output is built by the ``*_data`` functions from explicit whitelists of fields: a match's view comes
only from ``selectors.match_view_for`` (the public view plus the viewer's own hand), so the engine state,
the RNG state, move snapshots and other seats' hands cannot reach an answer by accident. The output
serializers describe that shape in the schema; the views return the dicts as they are (dates render
as ISO 8601 in UTC), and tests/api/test_schema_fuzz.py checks every answer against the description.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.urls import reverse
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import bots
from games.engines import registry
from games.engines.base import Engine
from games.models import Match, Seat
from games.selectors import LogLine, MatchView
from games.services.forecasting import MAX_DEPTH as MAX_FORECAST_DEPTH
from games.services.forecasting import MAX_LINES as MAX_FORECAST_LINES
from games.text import TextField, validate_one_line

# Bounds that keep every number far from overflowing a timedelta or a database integer.
MAX_VERSION = 2**31 - 1
MAX_NOTATION = 200
MAX_PAGE_SIZE = 100
# A text option (a custom layout as JSON) may be as long as on the web form.
MAX_TEXT_OPTION = 20_000


# --- input --------------------------------------------------------------------------------------------

# Django's name for the CSRF token: a session client that copies it from a form into the body as well as
# the X-CSRFToken header sends no field of ours, only a token the check has already read.
_TOLERATED = frozenset({"csrfmiddlewaretoken"})


# A request body that refuses a field it does not know, naming it. Dropped without a word, a misspelt
# field (or one the API does not take) would have the request carried out as if it had not been sent.
# The schema says so too (additionalProperties: false, below). Subclasses carry their own docstring: it
# is their description in the schema.
class StrictSerializer(serializers.Serializer):
    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(str(key) for key in data if key not in self.fields and key not in _TOLERATED)
            if unknown:
                known = ", ".join(name for name, field in self.fields.items() if not field.read_only)
                raise serializers.ValidationError(
                    {name: [f"There is no field {name}; the fields are {known}."] for name in unknown}
                )
        return super().to_internal_value(data)


class StrictSerializerScheme(OpenApiSerializerExtension):
    target_class = StrictSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["additionalProperties"] = False
        return schema


class QuerySerializer(serializers.Serializer):
    """Query parameters: one given empty is refused, not read as absent (``?page=`` is no page)."""

    def to_internal_value(self, data: Any) -> Any:
        empty = sorted(name for name in self.fields if name in data and data[name] == "")
        if empty:
            raise serializers.ValidationError(
                {name: ["Give a value, or leave the parameter out."] for name in empty}
            )
        return super().to_internal_value(data)


class MatchListQuerySerializer(QuerySerializer):
    scope = serializers.ChoiceField(
        choices=[("open", "open"), ("mine", "mine")],
        default="open",
        help_text="`open`: matches waiting for players. `mine`: your matches (needs authentication), "
        "those awaiting your move first.",
    )
    page = serializers.IntegerField(
        min_value=1, max_value=MAX_VERSION, required=False, help_text="Page number, from 1."
    )
    page_size = serializers.IntegerField(
        min_value=1,
        max_value=MAX_PAGE_SIZE,
        required=False,
        help_text=f"Matches per page, 1 to {MAX_PAGE_SIZE} (20 when left out).",
    )


def _seat_range() -> tuple[int, int]:
    engines = [registry.get_engine(slug) for slug in registry.slugs()]
    return min(e.min_players for e in engines), max(e.max_players for e in engines)


class MatchCreateSerializer(StrictSerializer):
    """A new match. A field not listed here is refused with a 400 that names it."""

    # The same fields and bounds as the web form (games/forms.py); the service checks the rest.
    game = serializers.ChoiceField(choices=[], help_text="A game's slug, from /api/games/.")
    # Their bounds come from the registry (__init__): the fewest and the most seats of any game.
    seat_count = serializers.IntegerField(
        help_text="Number of players, computer opponents included. The game decides: each has its own "
        "range, `min_players` to `max_players` in /api/games/, and refuses any other count with a 400."
    )
    bot_count = serializers.IntegerField(
        required=False,
        default=0,
        help_text="Seats computer opponents take at once, right after yours: at most `seat_count` - 1. "
        "The other seats wait for players to join; when none is left the match starts at once. "
        "A match with computer opponents is never rated.",
    )
    bot_level = serializers.ChoiceField(
        choices=bots.kinds(),
        required=False,
        default=bots.DEFAULT,
        help_text="How the computer opponents play: `random` moves, or the search bot at `easy`, "
        "`normal` or `hard` (more playouts and more thinking time; easy weighs only two dozen of its "
        "own moves, drawn at random).",
    )
    options = serializers.DictField(
        child=TextField(max_length=MAX_TEXT_OPTION),
        required=False,
        default=dict,
        help_text="Option name -> value, from the game's `options` (one of its `choices`) and "
        "`text_options` in /api/games/; missing ones take their default.",
    )
    name = TextField(
        max_length=80,
        required=False,
        allow_blank=True,
        default="",
        validators=[validate_one_line],
        help_text="Shown in the lobby: one line, without control or formatting characters.",
    )
    move_time_limit_hours = serializers.IntegerField(
        min_value=1, max_value=720, required=False, allow_null=True, help_text="Empty: no time limit."
    )
    bank_initial_hours = serializers.IntegerField(
        min_value=0,
        max_value=24 * 60,
        required=False,
        allow_null=True,
        help_text="The reserve each player starts with (needs a time per move).",
    )
    bank_increment_hours = serializers.IntegerField(
        min_value=0,
        max_value=24 * 7,
        required=False,
        allow_null=True,
        help_text="Added to a player's reserve after each move, up to the cap.",
    )
    bank_max_hours = serializers.IntegerField(
        min_value=1,
        max_value=24 * 60,
        required=False,
        allow_null=True,
        help_text="The reserve's cap, at least the starting reserve; empty: the starting reserve.",
    )
    pause_weekends = serializers.BooleanField(required=False, default=False)
    timeout_policy = serializers.ChoiceField(
        choices=Match.Timeout.choices, required=False, default=Match.Timeout.SKIP
    )
    rated = serializers.BooleanField(
        required=False,
        default=True,
        help_text="The result changes the players' ratings (never with computer opponents).",
    )
    allow_takebacks = serializers.BooleanField(
        required=False,
        default=False,
        help_text="A player of this rated match may take back their last move if the others agree "
        "(unrated matches always allow it).",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Read the registry now, not at import: engines can be registered at run time.
        self.fields["game"].choices = registry.choices()
        low, high = _seat_range()
        for name, bounds in (("seat_count", (low, high)), ("bot_count", (0, high - 1))):
            field = self.fields[name]
            self.fields[name] = serializers.IntegerField(
                min_value=bounds[0],
                max_value=bounds[1],
                required=field.required,
                help_text=field.help_text,
                **({} if field.required else {"default": field.default}),
            )

    def service_arguments(self) -> dict[str, Any]:
        """The validated data as ``services.match_create`` takes it (hours -> timedelta; 0 = none, as on
        the web form; ``bot_count`` seats of ``bot_level``, as on the form)."""
        data = dict(self.validated_data)

        def hours(name: str) -> timedelta | None:
            value = data.pop(name, None)
            return timedelta(hours=value) if value else None

        return {
            "game": data["game"],
            "seat_count": data["seat_count"],
            "options": data["options"],
            "name": data["name"],
            "move_time_limit": hours("move_time_limit_hours"),
            "bank_initial": hours("bank_initial_hours"),
            "bank_increment": hours("bank_increment_hours"),
            "bank_max": hours("bank_max_hours"),
            "pause_weekends": data["pause_weekends"],
            "timeout_policy": data["timeout_policy"],
            "bots": [data["bot_level"]] * data["bot_count"],
            "rated": data["rated"],
            "allow_takebacks": data["allow_takebacks"],
        }


@extend_schema_field(
    {
        "oneOf": [
            # Not blank: at least one character that is not a space.
            {"type": "string", "minLength": 1, "maxLength": MAX_NOTATION, "pattern": r"\S", "example": "d4"},
            {"type": "object", "additionalProperties": True, "example": {"place": "d4"}},
        ]
    }
)
class MoveField(serializers.Field):
    """A move in the game's notation, or as the move object the legal-moves endpoint lists."""

    default_error_messages = {
        "invalid": "Give the move as notation (a string) or as a move object.",
        "blank": "Enter a move.",
        "max_length": f"A move in notation has at most {MAX_NOTATION} characters.",
    }

    def to_internal_value(self, data: Any) -> str | dict[str, Any]:
        if isinstance(data, dict):
            return data
        if not isinstance(data, str):
            self.fail("invalid")
        text = data.strip()
        if not text:
            self.fail("blank")
        if len(text) > MAX_NOTATION:
            self.fail("max_length")
        return text

    def to_representation(self, value: Any) -> Any:
        return value


class MoveSubmitSerializer(StrictSerializer):
    """A move, with the match version it was chosen at. A field not listed here is refused."""

    move = MoveField()
    version = serializers.IntegerField(
        min_value=0,
        max_value=MAX_VERSION,
        help_text="The match version you saw; if anyone moved since, nothing is played (409).",
    )

    def service_arguments(self) -> dict[str, Any]:
        return _move_arguments(self.validated_data["move"], self.validated_data["version"])


def _move_arguments(move: str | dict[str, Any], version: int) -> dict[str, Any]:
    return {
        "expected_version": version,
        "text": move if isinstance(move, str) else None,
        "move": move if isinstance(move, dict) else None,
    }


class ForecastSubmitSerializer(StrictSerializer):
    """Your conditional moves, replacing any you had. A field not listed here is refused."""

    lines = serializers.ListField(
        child=serializers.ListField(
            child=TextField(max_length=MAX_NOTATION),
            min_length=1,
            max_length=MAX_FORECAST_DEPTH,
        ),
        max_length=MAX_FORECAST_LINES,
        help_text="Each line: your opponent's move, your reply, and so on, in the game's notation "
        f"(at most {MAX_FORECAST_DEPTH} moves, ending with your reply; at most {MAX_FORECAST_LINES} lines). "
        "Empty: no conditional moves.",
    )
    version = serializers.IntegerField(
        min_value=0,
        max_value=MAX_VERSION,
        required=False,
        help_text="The match version you planned from; if anyone moved since, nothing is saved (409).",
    )


# --- output -------------------------------------------------------------------------------------------


class PingSerializer(serializers.Serializer):
    ok = serializers.BooleanField()


class OptionChoiceSerializer(serializers.Serializer):
    value = serializers.CharField()
    label = serializers.CharField()


class GameOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    default = serializers.CharField()
    choices = OptionChoiceSerializer(many=True)


class TextOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    help = serializers.CharField(allow_blank=True)


class GameSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    min_players = serializers.IntegerField(help_text="The fewest seats a match of this game may have.")
    max_players = serializers.IntegerField(help_text="The most seats a match of this game may have.")
    options = GameOptionSerializer(many=True, help_text="Options whose value is one of a few choices.")
    text_options = TextOptionSerializer(
        many=True, help_text="Options given as free text (a custom layout as JSON); empty: the default."
    )


class ClockSerializer(serializers.Serializer):
    move_time_limit_hours = serializers.FloatField(allow_null=True)
    bank_initial_hours = serializers.FloatField(allow_null=True)
    bank_increment_hours = serializers.FloatField(allow_null=True)
    bank_max_hours = serializers.FloatField(allow_null=True)
    pause_weekends = serializers.BooleanField()
    timeout_policy = serializers.ChoiceField(choices=Match.Timeout.choices)


class SeatSummarySerializer(serializers.Serializer):
    position = serializers.IntegerField()
    player = serializers.CharField(help_text="The player's name, or the computer's.")
    username = serializers.CharField(allow_null=True)
    bot = serializers.CharField(allow_blank=True)
    status = serializers.ChoiceField(choices=Seat.Status.choices)
    score = serializers.FloatField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True)


class SeatSerializer(SeatSummarySerializer):
    autopilot = serializers.BooleanField(help_text="A computer plays for the seat until its player returns.")
    bank_hours = serializers.FloatField(allow_null=True, help_text="Reserve time left on the seat's clock.")
    to_act = serializers.BooleanField(help_text="The match awaits this seat's input.")
    deadline = serializers.DateTimeField(allow_null=True, help_text="When this seat's open turn runs out.")


class MatchSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="The match's web page.")
    game = serializers.CharField()
    game_title = serializers.CharField()
    name = serializers.CharField(allow_blank=True)
    status = serializers.ChoiceField(choices=Match.Status.choices)
    version = serializers.IntegerField()
    seat_count = serializers.IntegerField()
    rated = serializers.BooleanField(help_text="The result changes the players' ratings.")
    options = serializers.DictField(child=serializers.CharField())
    clock = ClockSerializer()
    seats = SeatSummarySerializer(many=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    result_text = serializers.CharField(allow_blank=True)
    your_turn = serializers.BooleanField(help_text="Your input is awaited (false when not seated).")
    your_deadline = serializers.DateTimeField(allow_null=True)


class MatchDetailSerializer(MatchSummarySerializer):
    seats = SeatSerializer(many=True)
    your_position = serializers.IntegerField(allow_null=True, help_text="Your seat; null for a spectator.")
    to_act = serializers.ListField(
        child=serializers.IntegerField(), help_text="Seats whose input is awaited."
    )
    view = serializers.DictField(
        help_text="The game's view for your seat (the spectator's when not seated): the public part, "
        "plus under `private` what only your seat may see."
    )
    seed_commitment = serializers.CharField(
        allow_blank=True,
        help_text="SHA-256 of the match's secret seed, published when it began; empty for a match from "
        "before seeds (seeds/records.md).",
    )
    revealed_seed = serializers.CharField(
        allow_blank=True,
        help_text="The seed once the match has ended, empty until then: every random step can be drawn "
        "again from it.",
    )
    chance_steps = serializers.IntegerField(help_text="Random steps drawn so far (step 0 is the setup).")
    rules_version = serializers.IntegerField(
        allow_null=True,
        help_text="The edition of the game's rules the match was dealt under (the engine's "
        "rules_version when it started); null before it starts, and for a match from before versions.",
    )
    verify_url = serializers.CharField(help_text="The match's Verify the dice page.")


class LegalMoveSerializer(serializers.Serializer):
    notation = serializers.CharField()
    move = serializers.DictField()


class LegalMovesSerializer(serializers.Serializer):
    your_turn = serializers.BooleanField()
    your_position = serializers.IntegerField(allow_null=True)
    version = serializers.IntegerField(help_text="Submit this with your move.")
    moves = LegalMoveSerializer(many=True)


class MovePlayedSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="The move's place in the game log.")
    notation = serializers.CharField()
    move = serializers.DictField()
    version = serializers.IntegerField(help_text="The match version after the move.")
    status = serializers.ChoiceField(choices=Match.Status.choices, help_text="The match status after it.")


class LogLineSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True, help_text="Null for an automatic step (dice, draws).")
    player = serializers.CharField(allow_blank=True)
    notation = serializers.CharField(allow_blank=True)
    events = serializers.ListField(child=serializers.CharField())
    at = serializers.DateTimeField()


class MatchLogSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    your_position = serializers.IntegerField(allow_null=True)
    lines = LogLineSerializer(many=True)


class ForecastSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    your_position = serializers.IntegerField()
    version = serializers.IntegerField(help_text="The match version the lines start from: the current one.")
    lines = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Your opponent's move, your reply, and so on, in the game's own notation.",
    )


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What went wrong, in a sentence to show.")


class ValidationErrorSerializer(ErrorSerializer):
    errors = serializers.DictField(required=False, help_text="Field name -> its messages, for invalid input.")


# --- building the output --------------------------------------------------------------------------------


def _hours(value: timedelta | None) -> float | None:
    return None if value is None else value.total_seconds() / 3600


def game_data(engine: Engine) -> dict[str, Any]:
    return {
        "slug": engine.slug,
        "title": engine.title,
        "min_players": engine.min_players,
        "max_players": engine.max_players,
        "options": [
            {
                "name": name,
                "label": option.label,
                "default": option.default,
                "choices": [{"value": value, "label": label} for value, label in option.choices.items()],
            }
            for name, option in engine.options.items()
        ],
        "text_options": [
            {"name": name, "label": text.label, "help": text.help}
            for name, text in engine.text_options.items()
        ],
    }


def games_data() -> list[dict[str, Any]]:
    return [game_data(registry.get_engine(slug)) for slug in registry.slugs()]


def _seat_summary(seat: Seat) -> dict[str, Any]:
    return {
        "position": seat.position,
        "player": seat.player_name,
        "username": seat.user.username if seat.user_id else None,
        "bot": seat.bot,
        "status": seat.status,
        "score": seat.score,
        "rank": seat.rank,
    }


def _match_common(match: Match, seats: list[Seat]) -> dict[str, Any]:
    return {
        "id": match.pk,
        "url": match.get_absolute_url(),
        "game": match.game,
        "game_title": match.engine.title,
        "name": match.name,
        "status": match.status,
        "version": match.version,
        "seat_count": match.seat_count,
        "rated": match.rated,
        "options": dict(match.options),
        "clock": {
            "move_time_limit_hours": _hours(match.move_time_limit),
            "bank_initial_hours": _hours(match.bank_initial),
            "bank_increment_hours": _hours(match.bank_increment),
            "bank_max_hours": _hours(match.bank_max),
            "pause_weekends": match.pause_weekends,
            "timeout_policy": match.timeout_policy,
        },
        "seats": [_seat_summary(seat) for seat in seats],
        "created_at": match.created_at,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "result_text": match.result_text,
    }


def match_summary_data(match: Match) -> dict[str, Any]:
    """One row of a list; ``awaiting_me``/``my_deadline`` exist on the user's own matches only."""
    data = _match_common(match, list(match.seats.all()))
    data["your_turn"] = bool(getattr(match, "awaiting_me", False)) and match.status == Match.Status.ACTIVE
    data["your_deadline"] = getattr(match, "my_deadline", None)
    return data


def match_detail_data(mv: MatchView) -> dict[str, Any]:
    """The match as ``mv``'s viewer sees it: nothing here comes from the engine state."""
    data = _match_common(mv.match, mv.seats)
    active = mv.match.status == Match.Status.ACTIVE
    for row, seat in zip(data["seats"], mv.seats, strict=True):
        turn = mv.open_turns.get(seat.position) if active else None
        row["autopilot"] = seat.autopilot
        row["bank_hours"] = _hours(seat.bank)
        row["to_act"] = seat.position in mv.actors
        row["deadline"] = turn.deadline if turn is not None else None
    mine = mv.open_turns.get(mv.viewer_position) if mv.my_turn else None
    data["your_position"] = mv.viewer_position
    data["your_turn"] = mv.my_turn
    data["your_deadline"] = mine.deadline if mine is not None else None
    data["to_act"] = sorted(mv.actors)
    data["view"] = mv.view
    data["seed_commitment"] = mv.match.seed_commitment
    data["revealed_seed"] = mv.match.seed_revealed
    data["chance_steps"] = mv.match.chance_steps
    data["rules_version"] = mv.match.rules_version
    data["verify_url"] = reverse("match-verify", args=[mv.match.pk])
    return data


def legal_moves_data(mv: MatchView) -> dict[str, Any]:
    """The seat's legal moves from the engine's one list, with their notation; empty unless it is the
    viewer's turn. The state is read here, on the server, and only the seat's own moves leave it."""
    moves: list[dict[str, Any]] = []
    if mv.my_turn:
        engine = mv.match.engine
        moves = [
            {"notation": engine.listed_notation(move), "move": move}
            for move in engine.legal_moves(mv.match.engine_state, mv.viewer_position)
        ]
    return {
        "your_turn": mv.my_turn,
        "your_position": mv.viewer_position,
        "version": mv.match.version,
        "moves": moves,
    }


def log_data(match: Match, position: int | None, lines: list[LogLine]) -> dict[str, Any]:
    return {
        "match": match.pk,
        "your_position": position,
        "lines": [
            {
                "seq": line.seq,
                "seat": line.seat,
                "player": line.player,
                "notation": line.notation,
                "events": line.events,
                "at": line.at,
            }
            for line in lines
        ],
    }


def forecast_data(*, match: Match, seat: Seat, lines: list[list[str]]) -> dict[str, Any]:
    return {"match": match.pk, "your_position": seat.position, "version": match.version, "lines": lines}
