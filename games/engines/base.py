"""The engine contract: every game is a stateless object over plain JSON-serialisable dicts.

Nothing in ``games/engines`` may import Django, DRF or Celery; a test enforces it. The site talks to a
game only through the members of :class:`Engine`, so the UI, the bots and move validation share one
list of legal moves and no rule is written twice.
"""

from __future__ import annotations

import functools
import inspect
import pickle
import random
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

State = dict[str, Any]
Move = dict[str, Any]
View = dict[str, Any]
# A shape drawn over the board while a move is chosen but not sent (``Engine.move_preview``).
Preview = dict[str, str]


class IllegalMove(ValueError):
    """Raised for a move the rules forbid; the message is shown to the player as is."""


@dataclass(frozen=True)
class Event:
    """Something that happened, for the game log.

    ``visible_to`` is None for a public event, otherwise the seats that may see it; the log is filtered
    exactly like the view.
    """

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    visible_to: frozenset[int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "data": self.data,
            "visible_to": None if self.visible_to is None else sorted(self.visible_to),
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Event:
        seats = raw.get("visible_to")
        return cls(
            kind=raw["kind"],
            text=raw.get("text", ""),
            data=raw.get("data", {}),
            visible_to=None if seats is None else frozenset(seats),
        )

    def visible_for(self, seat: int | None) -> bool:
        return self.visible_to is None or (seat is not None and seat in self.visible_to)


@dataclass(frozen=True)
class Option:
    """One match option chosen at creation: its label, choices (value -> label) and default."""

    label: str
    choices: dict[str, str]
    default: str

    def __post_init__(self) -> None:
        if self.default not in self.choices:
            raise ValueError(f"default {self.default!r} is not one of the choices")


@dataclass(frozen=True)
class TextOption:
    """An option given as free text (a custom layout as JSON); ``resolve_options`` checks it."""

    label: str
    help: str = ""
    # The name of the browser editor that helps write it (static/js/editors.js), if any.
    editor: str = ""


class OptionsInvalid(ValueError):
    """Options refused, with every reason, and the option they are about (None: the options at large)."""

    def __init__(self, reasons: list[str], *, option: str | None = None, label: str = "") -> None:
        self.reasons = list(reasons)
        self.option = option
        prefix = f"{label}: " if label else ""
        super().__init__(prefix + " ".join(self.reasons))


class SvgRenderer(Protocol):
    def render(self, view: View, seat: int | None, *, interactive: bool) -> str: ...


# --- the sentence above the board -------------------------------------------------------------------
# A prompt names other players by seat; the site puts each player's name in the placeholder's place
# (engines know seats, not people).
_PLACEHOLDER = "{{seat{}}}"


def plain_copy(data: Any) -> Any:
    """A deep copy of plain data (a state, a view): pickle's round trip, several times faster than
    ``copy.deepcopy``, which the search bots would otherwise pay for at every step. It only ever reads
    what it has just written, never input (hence the nosec)."""
    return pickle.loads(pickle.dumps(data, pickle.HIGHEST_PROTOCOL))  # nosec B301


def seat_placeholder(seat: int) -> str:
    """Where a prompt names the player of ``seat``: ``{seat2}``, filled in by the site."""
    return _PLACEHOLDER.format(seat)


def waiting_for(seats: Iterable[int], doing: str = "") -> str:
    """ "Waiting for {seat1} and {seat2} to bid." from the seats awaited and what they are to do."""
    names = [seat_placeholder(s) for s in sorted(seats)]
    if not names:
        return "Waiting for the game to go on."
    who = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"Waiting for {who}{f' {doing}' if doing else ''}."


def awaited_seats(view: View) -> list[int]:
    """The seats a view says are to act (``to_act`` as a list or a seat, or ``to_move``), sorted."""
    awaited = view.get("to_act", view.get("to_move"))
    if isinstance(awaited, bool) or awaited is None:
        return []
    if isinstance(awaited, int):
        return [awaited]
    return sorted(s for s in awaited if isinstance(s, int) and not isinstance(s, bool))


# --- input from outside ---------------------------------------------------------------------------------
# Move dicts arrive from browsers and the API as JSON, notation from forms and e-mail. Every engine checks
# both on the way in (see ``Engine.__init_subclass__``), so the rules code only ever meets a dict of the
# game's own keys to short plain values, or a short readable text: never an unhashable list where it
# expects a square, True passed off as 1, nor a NUL, a lone surrogate or a megabyte that a reason would
# echo into a page, a log or an e-mail.
NOTATION_LIMIT = 200  # characters of a move in notation; the site's form and API allow as many
TEXT_LIMIT = 64  # characters of one text in a move dict (the longest any game lists has 13)
LIST_LIMIT = 16  # items of a list in a move dict (The Wall's catapult area has 3)
NUMBER_LIMIT = 2**31  # a whole number in a move dict lies strictly between minus this and this
# A list in a move holds texts and whole numbers; the keys of a game that names none may hold these.
_ITEM_KINDS: tuple[type, ...] = (str, int)
_ANY_KINDS: tuple[type, ...] = (str, int, bool, list)


def _plain(value: Any, kinds: tuple[type, ...]) -> bool:
    """Whether ``value`` is of one of ``kinds`` (str, int, bool, list), and small and printable."""
    if isinstance(value, str):
        return str in kinds and len(value) <= TEXT_LIMIT and value.isprintable()
    if isinstance(value, bool):  # before int: True must not pass for 1
        return bool in kinds
    if isinstance(value, int):
        return int in kinds and -NUMBER_LIMIT < value < NUMBER_LIMIT
    if isinstance(value, list):
        return list in kinds and len(value) <= LIST_LIMIT and all(_plain(v, _ITEM_KINDS) for v in value)
    return False  # None, floats (1.0 must not pass for 1 either), dicts, tuples, bytes, objects


def _readable(text: str) -> bool:
    """No control character but tab and line breaks, no lone surrogate or non-character, no invisible
    formatting (a right-to-left override): what a person can type and read back. Spaces of any width."""
    return text.isprintable() or all(
        c.isprintable() or c in "\t\n\r" or unicodedata.category(c) == "Zs" for c in text
    )


def _checking_apply(apply: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(apply)
    def checked(self: Engine, state: State, seat: int, move: Any, *args: Any, **kwargs: Any) -> Any:
        return apply(self, state, seat, self.check_move_shape(move), *args, **kwargs)

    return checked


def _checking_move(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def checked(self: Engine, move: Any, *args: Any, **kwargs: Any) -> Any:
        return method(self, self.check_move_shape(move), *args, **kwargs)

    return checked


def _checking_notation(parse_move: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(parse_move)
    def checked(self: Engine, text: Any, *args: Any, **kwargs: Any) -> Any:
        return parse_move(self, self.check_notation(text), *args, **kwargs)

    return checked


def _unchecked(method: Callable[..., Any]) -> Callable[..., Any]:
    """An engine's own method behind its door check: functools.wraps keeps it as ``__wrapped__``."""
    return getattr(method, "__wrapped__", method)


# The members that take a move or notation from outside, and the check each gets.
_CHECKED: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "apply": _checking_apply,
    "format_move": _checking_move,
    "click_path": _checking_move,
    "parse_move": _checking_notation,
}


class Engine:
    """Base class of every game engine. Subclasses fill in the metadata and the rule methods.

    A move is a dict; ``legal_moves`` is canonical and sorted, and ``apply`` refuses anything not in it.
    Before an engine's own code sees a move or notation from outside, this class has refused (with
    IllegalMove) whatever is not of the shape ``move_fields`` declares or is not readable text.
    """

    slug: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[dict[str, Option]] = {}
    text_options: ClassVar[dict[str, TextOption]] = {}
    svg: ClassVar[SvgRenderer]
    # Moves written in the game's notation, shown where a player types or mails a move.
    notation_example: ClassVar[str] = ""
    # The keys of the game's moves and what each holds: str (a short printable text), int (a whole number,
    # never a bool), bool, list (a short list of texts and whole numbers), or a tuple of these. Empty: any
    # key, holding any of them (small test engines).
    move_fields: ClassVar[Mapping[str, type | tuple[type, ...]]] = {}
    # The reason given for a move of another shape: the game's own words and a hint at its moves.
    malformed_move: ClassVar[str] = ""
    # Conditional moves ("forecasts"): whether a player may queue replies to the opponent's next moves,
    # played at once when the opponent's move matches. Only for a game where, between two seats, a move
    # is answered by a plain move with no chance step in between; the site still checks every planned
    # line on the real position, offers it only in two-seat matches, and never in a game with secrets
    # (checking a line against hidden cards would tell of them).
    forecasts: ClassVar[bool] = False
    # Which edition of our rules a match starting now is dealt and played under (a match keeps the one it
    # started with). Raise it with any change after which a match played before would replay differently
    # (a decision, a preset layout, an event's wording): a record is checked against today's rules, and
    # the version is how the check tells a changed rule from a record that was tampered with.
    # tests/engines/test_rules_versions.py holds what each version plays, to catch a change left unraised.
    rules_version: ClassVar[int] = 1
    _move_kinds: ClassVar[dict[str, tuple[type, ...]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Check what comes from outside at the door, once for every engine, so that none can forget:
        ``apply``, ``format_move`` and ``click_path`` get only moves that pass ``check_move_shape``, and
        ``parse_move`` only text that passes ``check_notation``. The rules still decide what is legal."""
        super().__init_subclass__(**kwargs)
        cls._move_kinds = {
            key: kinds if isinstance(kinds, tuple) else (kinds,) for key, kinds in cls.move_fields.items()
        }
        for name, checking in _CHECKED.items():
            method = cls.__dict__.get(name)
            if inspect.isfunction(method):
                setattr(cls, name, checking(method))

    def check_move_shape(self, move: Any) -> Move:
        """``move`` itself if it is a dict of the game's keys to plain values of the kinds they hold;
        otherwise IllegalMove with the game's reason, which echoes nothing of the move."""
        if isinstance(move, dict) and move:
            fields = self._move_kinds
            for key, value in move.items():
                kinds = fields.get(key) if fields else (_ANY_KINDS if _plain(key, (str,)) else None)
                if kinds is None or not _plain(value, kinds):
                    break
            else:
                return move
        raise IllegalMove(self.malformed_move or f"That is not a move of {self.title}.")

    def check_notation(self, text: Any) -> str:
        """``text`` itself if it is text of a sane length in readable characters; otherwise IllegalMove
        with a plain reason that echoes none of it."""
        example = f" For example: {self.notation_example}." if self.notation_example else ""
        if not isinstance(text, str):
            raise IllegalMove(f"Write the move as text.{example}")
        if len(text) > NOTATION_LIMIT and len(text.strip()) > NOTATION_LIMIT:
            raise IllegalMove(f"That is too long for a move: a move has at most {NOTATION_LIMIT} characters.")
        if not _readable(text):
            raise IllegalMove(
                "A move is written in letters, digits and spaces; that one holds a control character or "
                "another that cannot be shown."
            )
        return text

    # --- setup -------------------------------------------------------------------------------------
    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        raise NotImplementedError

    def resolve_options(self, options: dict[str, str] | None, *, seats: int | None = None) -> dict[str, str]:
        """Fill in defaults and refuse unknown options or values with a reason a person can read."""
        given = dict(options or {})
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            raise ValueError(f"{self.title} has no option {', '.join(unknown)}.")
        resolved: dict[str, str] = {}
        for name, option in self.options.items():
            value = given.get(name, option.default)
            if value not in option.choices:
                allowed = ", ".join(option.choices)
                raise ValueError(f"{option.label}: {value!r} is not one of {allowed}.")
            resolved[name] = value
        if seats is not None and not self.min_players <= seats <= self.max_players:
            raise ValueError(f"{self.title} is for {self.min_players} to {self.max_players} players.")
        return resolved

    def option_examples(self, name: str, *, seats: int) -> dict[str, str]:
        """Ready-made values of the text option ``name`` for ``seats`` players (label -> text), offered by
        the match-creation form as starting points."""
        return {}

    # --- whose input is awaited ---------------------------------------------------------------------
    def actors(self, state: State) -> frozenset[int]:
        raise NotImplementedError

    def chance_pending(self, state: State) -> bool:
        return False

    def resolve_chance(self, state: State, rng: random.Random) -> tuple[State, list[Event]]:
        raise IllegalMove("No chance step is pending.")

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        raise NotImplementedError

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        raise NotImplementedError

    def apply_listed(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        """``apply`` of a move this engine listed itself, in ``legal_moves(state, seat)``, past the door's
        shape check. The search bots apply thousands a move, all of them listed; an engine whose ``apply``
        looks the move up among its legal moves overrides this to skip the look-up (the same state and
        events as ``apply``, which the conformance test checks)."""
        return _unchecked(type(self).apply)(self, state, seat, move)

    def parse_move(self, text: str) -> Move:
        raise NotImplementedError

    def format_move(self, move: Move) -> str:
        raise NotImplementedError

    def listed_notation(self, move: Move) -> str:
        """``format_move`` of a move this engine listed itself (``legal_moves``), past the door's shape
        check, which only outside input needs: Wall Go lists some 2,000 moves a turn, and checking each
        twice took a third of the time to draw the board of the player to move."""
        return _unchecked(type(self).format_move)(self, move)

    def listed_click_path(self, move: Move) -> list[str]:
        """``click_path`` of a move this engine listed itself, past the door (see listed_notation)."""
        return _unchecked(type(self).click_path)(self, move)

    def move_visible_to(self, state: State, seat: int, move: Move) -> frozenset[int] | None:
        """Who may read ``move`` (made by ``seat`` in ``state``) in the log: None for everyone.

        A sealed choice (a secret bid, an order given face down) returns the mover alone; the others
        learn what it did from its events, which carry their own visibility.
        """
        return None

    def click_path(self, move: Move) -> list[str]:
        """The ``data-target`` values of the SVG elements a player clicks, in order, to make ``move``.

        The board script offers, after each click, only the next elements of legal moves that start
        with the clicks made so far, so the browser needs no rules of its own.
        """
        raise NotImplementedError

    def board_actions(self, view: View, seat: int | None) -> list[tuple[str, str]]:
        """Click targets the page draws as buttons beside the board instead of in the SVG, as
        ``(data-target, label)`` in the order shown; the page shows only those a legal move clicks.

        A big board keeps its picture for places and pieces and leaves its actions to real buttons
        that stay readable and in sight. Its SVG module provides them as ``actions(view, seat)``, from
        the view alone like the picture itself. None by default: every target is in the SVG.
        """
        actions = getattr(self.svg, "actions", None)
        return list(actions(view, seat)) if actions is not None else []

    def move_preview(self, view: View, seat: int, move: Move) -> list[Preview]:
        """What to draw on the board while ``seat`` has chosen ``move`` (one of its legal moves) but not
        yet sent it, as shapes over places of the interactive SVG; static/js/pending-move.js draws them.

        Built from ``view`` (that seat's own) and the move alone, so it shows nothing the seat may not
        know. A place is a click target's ``data-target`` or a ``data-place`` the SVG adds for the
        purpose; pieces standing on a place carry ``data-on`` with its name. The shapes:

        - ``{"draw": "ghost", "from": p, "to": q}``: the pieces on ``p`` shown, translucent, on ``q``,
          and dimmed where they stand;
        - ``{"draw": "wall", "at": edge}`` a wall about to be built, ``{"draw": "unwall", "at": wall}`` one
          about to go;
        - ``{"draw": "arrow", "from": p, "to": q}``, ``{"draw": "ring", "at": p}`` (an attack, a target);
        - ``{"draw": "label", "at": p, "text": words}`` (an order or a bid on its place);
        - ``{"draw": "piece", "at": p}``: the seat's own piece (the SVG's ``data-preview-piece``).

        Empty by default: nothing to draw, or the browser draws it from the click path alone (Wall Go,
        whose thousands of moves a turn would double the page for what their paths already say).
        """
        return []

    # --- what may be known --------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> View:
        """Everything ``seat`` may know (None: a spectator); the only way state leaves the server.

        Engines do not override this: they implement ``public_view`` and ``private_view``.

        It is the public part plus, under the key ``private``, what only that seat may see. The site
        stores the two apart (``Match.public_view`` and the seat's ``HiddenHand``), so a player's page
        is built from the public part and that seat's hand and nothing else.
        """
        public = self.public_view(state)
        public["private"] = {} if seat is None else self.private_view(state, seat)
        return public

    def public_view(self, state: State) -> View:
        """What every seat and every spectator may know; a fresh dict."""
        raise NotImplementedError

    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        """What only ``seat`` may know (its hand, its sealed bid); empty in a game without secrets."""
        return {}

    def sample_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        """A state that ``seat`` cannot tell from ``state``: all it may not know re-dealt at random.

        Search bots plan over such samples, and the conformance test checks that the view and the SVG
        of ``seat`` are the same for every sample (non-interference). Games without secrets keep this.
        """
        return plain_copy(state)

    def prompt(self, view: View, seat: int | None) -> str:
        """One sentence for the step at hand as ``seat`` sees it (None: a spectator), shown above the board.

        Computed from ``view(state, seat)`` alone, so it can say nothing the view does not. Other players
        appear as ``seat_placeholder`` names the site fills in. Engines say what the step asks for; this
        default says only whose step it is.
        """
        if view.get("phase") == "over" or view.get("end_reason"):
            return "The game is over."
        awaited = awaited_seats(view)
        if seat is not None and seat in awaited:
            return "It is your move."
        if not awaited:
            return "The game goes on by itself: wait a moment."
        return waiting_for(awaited, "to move")

    def outcome(self, state: State) -> list[float] | None:
        raise NotImplementedError

    def skip(self, state: State, seat: int, rng: random.Random) -> tuple[State, list[Event]]:
        """Pass ``seat``'s turn, or make the game's default move for it, when its time has run out.

        Engines where a turn cannot simply be passed make their default move (with ``rng`` where the
        default is a random choice). Without it the site treats a timeout as a forfeit.
        """
        raise NotImplementedError

    def eliminate(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """Take a resigned or forfeited seat out of a game that goes on without it.

        Engines that cannot continue without every seat leave this as is; the site then ends the match.
        """
        raise NotImplementedError

    def teams(self, seats: int) -> list[list[int]] | None:
        """The seats that win and lose together (the sides of a team game), or None when every seat
        plays for itself; ratings count a team's result for each of its members."""
        return None

    def is_over(self, state: State) -> bool:
        return self.outcome(state) is not None

    def render_svg(self, view: View, seat: int | None, *, interactive: bool = False) -> str:
        return self.svg.render(view, seat, interactive=interactive)


def has_secrets(engine: Engine) -> bool:
    """Whether any seat of this game may know something the others may not (a hand, a sealed bid)."""
    return type(engine).private_view is not Engine.private_view
