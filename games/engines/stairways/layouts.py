"""Starting layouts: the presets in ``seeds/stairways/`` and the checks every layout must pass.

A layout, as ``new_state`` uses it, is a plain dict::

    {"name": "classic", "walls": ["c3e", ...], "stairways": ["a1", "h8"],   # stairway i is seat i's
     "heroes": ["d5", "e4"], "giant": "b7" or None, "rats": [{"square": "a8", "size": 4}, ...]}

A preset file names the walls and stairways once and gives the pieces of both piece sets the seed
describes (``pieces.first_game`` and ``pieces.recommended``); ``preset`` expands one of them. A custom
layout (the match option ``layout_json``) is the dict above as JSON text.

The Multiple Boards variant adds ``"boards"``: a list of one or two further boards, each
``{"walls": [...], "heroes": [...], "giant": "e8" or None, "rats": [...]}`` named with that board's own
squares (a1 to h8) and without stairways. The presets take theirs from ``<name>-annex.json``; a layout
without ``boards`` is a one-board layout, exactly as before.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from games.engines.stairways.board import EDGE_ORDER, MAX_BOARDS, SQUARE_SET, canonical_wall

# seeds/ sits at the top of the checkout, next to games/.
LAYOUT_DIR = Path(__file__).resolve().parents[3] / "seeds" / "stairways"
PRESETS: dict[str, str] = {
    "classic": "Classic: a few walls, open halls",
    "maze": "Maze: many walls, winding corridors",
}
PIECE_SETS: dict[str, str] = {
    # The rats follow the seed's count: as many groups as heroes, two of them of four (seeds/stairways.md).
    "first_game": "First game: a hero per player (2 for two players)",
    "recommended": "Recommended: 4 heroes, the giant, two groups of 4 rats and two single rats",
}
RAT_SIZES = (1, 4)
MAX_HEROES = 8
MAX_RATS = 8
# A layout nests five levels deep (the layout, its boards, a board, its rats, a rat group).
MAX_DEPTH = 6
DEPTH_REASON = f"A layout nests lists and objects at most {MAX_DEPTH} levels deep; this one goes deeper."
# Characters of a custom layout's JSON text (the site's form allows as many).
JSON_LIMIT = 20_000
# Every text in a layout is a square, a wall or its name: short, printable.
TEXT_LIMIT = 80


@cache
def _preset_file(name: str, seats: int) -> dict[str, Any]:
    path = LAYOUT_DIR / f"{name}-{seats}.json"
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def preset(name: str, seats: int, pieces: str, boards: int = 1) -> dict[str, Any]:
    """The preset ``name`` for ``seats`` players with the piece set ``pieces``, as a fresh dict: the
    layout's walls, and any that come with the piece set; with ``boards`` above 1, the further boards
    come from the preset's annex file (``<name>-annex.json``)."""
    raw = _preset_file(name, seats)
    chosen = raw["pieces"][pieces]
    layout: dict[str, Any] = {
        "name": name,
        "walls": [*raw["walls"], *chosen.get("walls", [])],
        "stairways": list(raw["stairways"]),
        "heroes": list(chosen["heroes"]),
        "giant": chosen.get("giant"),
        "rats": [dict(r) for r in chosen["rats"]],
    }
    if boards > 1:
        annex = _annex_file(name)["boards"][: boards - 1]
        layout["boards"] = [
            {
                "walls": list(b["walls"]),
                "heroes": list(b["pieces"][pieces]["heroes"]),
                "giant": b["pieces"][pieces].get("giant"),
                "rats": [dict(r) for r in b["pieces"][pieces]["rats"]],
            }
            for b in annex
        ]
    return layout


@cache
def _annex_file(name: str) -> dict[str, Any]:
    with (LAYOUT_DIR / f"{name}-annex.json").open(encoding="utf-8") as handle:
        return json.load(handle)


def preset_info(name: str, seats: int) -> dict[str, Any]:
    """The whole preset file (title, symmetry note, both piece sets) for documentation and tests."""
    return json.loads(json.dumps(_preset_file(name, seats)))


def _square_errors(value: Any, what: str) -> list[str]:
    if not isinstance(value, str) or value not in SQUARE_SET:
        return [f"{what}: {value!r} is not a square (a1 to h8)."]
    return []


def layout_validate(layout: Any, seats: int | None = None) -> list[str]:
    """Every reason ``layout`` cannot start a game (empty when it can), in sentences a person can read.

    Walls must be interior edges (they start between squares, never on the rim), named once each; one
    stairway per seat on distinct squares; at least two heroes; every piece on its own square and none
    on a stairway; rat groups of 1 or 4 rats, as many groups as heroes, two of them of 4 rats (the
    seed's rat groups).
    The optional ``boards`` lists the further boards of the Multiple Boards variant (at most two),
    each with its own walls and pieces under the same rules, named with the board's own squares a1 to
    h8, and no stairways (those all stand on the first board); a further board may have no hero, and
    then no rats.
    """
    if not isinstance(layout, dict):
        return ["A layout is a JSON object with walls, stairways, heroes, giant and rats."]
    errors = _structure_errors(layout)
    if errors:
        return errors
    known = {"name", "walls", "stairways", "heroes", "giant", "rats", "boards"}
    unknown = sorted(set(layout) - known)
    if unknown:
        errors.append(f"Unknown layout fields: {', '.join(map(str, unknown))}.")
    if "name" in layout and not isinstance(layout["name"], str):
        errors.append("The layout's name must be text.")

    errors += _wall_errors(layout, "")
    stairways = layout.get("stairways")
    if not isinstance(stairways, list) or not stairways:
        errors.append("stairways must list one square per seat.")
        stairways = []
    elif seats is not None and len(stairways) != seats:
        errors.append(f"This layout has {len(stairways)} stairways; the match has {seats} seats.")
    if not 2 <= len(stairways) <= 4 and stairways:
        errors.append("Walls and Stairways is for 2 to 4 players: give 2 to 4 stairways.")
    for i, sq in enumerate(stairways):
        errors += _square_errors(sq, f"Stairway {i + 1}")
    if len(set(map(str, stairways))) != len(stairways):
        errors.append("Two stairways share a square.")
    errors += _piece_errors(layout, stairways, "", need_hero=True)

    extra = layout.get("boards", [])
    if not isinstance(extra, list) or len(extra) > MAX_BOARDS - 1:
        errors.append(
            f"boards must list at most {MAX_BOARDS - 1} further boards, each with its walls, heroes, "
            "giant and rats."
        )
        extra = []
    for k, more in enumerate(extra):
        where = f"Board {k + 2}: "
        if not isinstance(more, dict):
            errors.append(where + "a board is a JSON object with walls, heroes, giant and rats.")
            continue
        if "stairways" in more:
            errors.append(where + "stairways all stand on the first board.")
        unknown = sorted(set(more) - {"walls", "heroes", "giant", "rats", "stairways"})
        if unknown:
            errors.append(where + f"unknown fields {', '.join(map(str, unknown))}.")
        errors += _wall_errors(more, where) + _piece_errors(more, [], where, need_hero=False)
    return errors


def _structure_errors(layout: dict[str, Any]) -> list[str]:
    """What keeps the checks below from reading ``layout`` at all: nesting deeper than any layout's, or
    a key or text that is not short printable text. A NUL, a lone surrogate, a non-character or a
    control character is in no square, wall or name; the database refuses the first two in the game
    state, and a reason must not echo any of them. Walked without recursion, so any depth is safe."""
    stack: list[tuple[Any, str, int]] = [(layout, "", 1)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, dict | list) and depth > MAX_DEPTH:
            return [DEPTH_REASON]
        if isinstance(value, str) and not _plain_text(value):
            what = f"The text at {where}" if where else "A text of the layout"
            return [
                f"{what} is not plain text of at most {TEXT_LIMIT} characters: it holds a control "
                "character, a NUL, a lone surrogate or a non-character, or is too long."
            ]
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str) or not _plain_text(key):
                    return [
                        "A field name of the layout is not plain text: use the names walls, stairways, "
                        "heroes, giant, rats, boards and name."
                    ]
                stack.append((item, f"{where}.{key}" if where else key, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{index}]", depth + 1) for index, item in enumerate(value))
    return []


def _plain_text(text: str) -> bool:
    return len(text) <= TEXT_LIMIT and text.isprintable()


def _named(where: str, text: str) -> str:
    """A sentence about the board ``where`` ("Board 2: "; empty for the first board, whose sentences
    read as they always have)."""
    return where + text[0].lower() + text[1:] if where else text


def _wall_errors(board: dict[str, Any], where: str) -> list[str]:
    errors: list[str] = []

    def err(text: str) -> None:
        errors.append(_named(where, text))

    walls = board.get("walls", [])
    if not isinstance(walls, list):
        err("walls must be a list of wall names such as c3e or c3n.")
        walls = []
    seen_walls: set[str] = set()
    for raw in walls:
        edge = canonical_wall(raw) if isinstance(raw, str) else None
        if edge is None:
            err(f"Wall {raw!r} is not an edge between two squares (walls start there, never on the rim).")
        elif edge in seen_walls:
            err(f"Wall {raw!r} is named twice (walls may not overlap).")
        else:
            seen_walls.add(edge)
    return errors


def _piece_errors(board: dict[str, Any], stairways: list[Any], where: str, *, need_hero: bool) -> list[str]:
    errors: list[str] = []

    def err(text: str) -> None:
        errors.append(_named(where, text))

    occupied: dict[str, str] = {}

    def place(sq: Any, what: str) -> None:
        problems = _square_errors(sq, what)
        if problems:
            for problem in problems:
                err(problem)
            return
        if sq in stairways:
            err(f"{what} starts on the stairway {sq}; pieces start off the stairways.")
        if sq in occupied:
            err(f"{what} and {occupied[sq]} share {sq}; every piece starts on its own square.")
        else:
            occupied[sq] = what

    heroes = board.get("heroes", [] if not need_hero else None)
    if not isinstance(heroes, list) or (need_hero and not heroes):
        err("heroes must list at least two squares." if need_hero else "heroes must be a list of squares.")
        heroes = []
    if len(heroes) > MAX_HEROES:
        err(f"At most {MAX_HEROES} heroes.")
    for i, sq in enumerate(heroes):
        place(sq, f"Hero {i + 1}")

    giant = board.get("giant")
    if giant is not None:
        place(giant, "The giant")

    rats = board.get("rats", [])
    if not isinstance(rats, list):
        err('rats must be a list of {"square": ..., "size": 1 or 4}.')
        rats = []
    if len(rats) > MAX_RATS:
        err(f"At most {MAX_RATS} rat groups.")
    sizes: list[int] | None = []
    for i, group in enumerate(rats):
        what = f"Rat group {i + 1}"
        if not isinstance(group, dict) or set(group) != {"square", "size"}:
            err(f'{what} must be {{"square": ..., "size": 1 or 4}}.')
            sizes = None
            continue
        if group["size"] not in RAT_SIZES or type(group["size"]) is not int:
            err(f"{what} must have 1 or 4 rats.")
            sizes = None
        elif sizes is not None:
            sizes.append(group["size"])
        place(group["square"], what)
    if sizes is not None and (heroes or not need_hero):
        balance = _rat_balance(len(heroes), sizes, none_allowed=not need_hero)
        if balance:
            err(balance)
    return errors


def _rat_balance(heroes: int, sizes: list[int], *, none_allowed: bool) -> str:
    """What is wrong with the rat groups for ``heroes`` heroes (empty when nothing): the seed wants as
    many rat groups as heroes, two of them of 4 rats and the others single rats."""
    fours, ones = sizes.count(4), sizes.count(1)
    if heroes == 0:
        if not sizes:
            return ""
        return "Rat groups go with the heroes: a board without heroes has no rats."
    if heroes == 1:
        return (
            "One hero is too few: a board has as many rat groups as heroes, two of them of 4 rats, so it "
            f"needs at least 2 heroes{' (or none)' if none_allowed else ''}."
        )
    if (fours, ones) == (2, heroes - 2):
        return ""
    want = "2 groups of 4 rats" + ("" if heroes == 2 else f" and {_count(heroes - 2, 'single rat')}")
    have = " and ".join(
        part for part in (_count(fours, "group of 4", "groups of 4"), _count(ones, "single rat")) if part
    )
    return (
        f"Rat groups go with the heroes: as many groups as heroes, two of them of 4 rats and the rest "
        f"single rats; for {heroes} heroes that is {want}, not {have or 'none'}."
    )


def _count(n: int, one: str, many: str = "") -> str:
    if not n:
        return ""
    return f"{n} {one}" if n == 1 else f"{n} {many or one + 's'}"


def _normalised_board(board: dict[str, Any]) -> dict[str, Any]:
    walls = sorted({canonical_wall(w) or "" for w in board.get("walls", [])}, key=EDGE_ORDER.__getitem__)
    return {
        "walls": walls,
        "heroes": list(board.get("heroes", [])),
        "giant": board.get("giant"),
        "rats": [{"square": r["square"], "size": r["size"]} for r in board.get("rats", [])],
    }


def normalised(layout: dict[str, Any]) -> dict[str, Any]:
    """A valid layout with canonical wall names in board order, ready to start from. ``boards`` is kept
    only when there are further boards, so a one-board layout reads as it always has."""
    first = _normalised_board(layout)
    out = {
        "name": str(layout.get("name", "custom")),
        "walls": first["walls"],
        "stairways": list(layout["stairways"]),
        "heroes": first["heroes"],
        "giant": first["giant"],
        "rats": first["rats"],
    }
    extra = layout.get("boards") or []
    if extra:
        out["boards"] = [_normalised_board(b) for b in extra]
    return out


def board_count(layout: dict[str, Any]) -> int:
    """How many boards a (valid) layout has."""
    return 1 + len(layout.get("boards") or [])
