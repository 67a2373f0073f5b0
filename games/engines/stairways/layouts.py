"""Starting layouts: the presets in ``seeds/stairways/`` and the checks every layout must pass.

A layout, as ``new_state`` uses it, is a plain dict::

    {"name": "classic", "walls": ["c3e", ...], "stairways": ["a1", "h8"],   # stairway i is seat i's
     "heroes": ["d5", "e4"], "giant": "b7" or None, "rats": [{"square": "a8", "size": 4}, ...]}

A preset file names the walls and stairways once and gives the pieces of both piece sets the seed
describes (``pieces.first_game`` and ``pieces.recommended``); ``preset`` expands one of them. A custom
layout (the match option ``layout_json``) is the dict above as JSON text.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from games.engines.stairways.board import EDGE_ORDER, SQUARE_SET, canonical_wall

# seeds/ sits at the top of the checkout, next to games/.
LAYOUT_DIR = Path(__file__).resolve().parents[3] / "seeds" / "stairways"
PRESETS: dict[str, str] = {
    "classic": "Classic: a few walls, open halls",
    "maze": "Maze: many walls, winding corridors",
}
PIECE_SETS: dict[str, str] = {
    "first_game": "First game: 2 heroes, the giant, two groups of 4 rats",
    "recommended": "Recommended: 4 heroes, the giant, two groups of 4 rats and two single rats",
}
RAT_SIZES = (1, 4)
MAX_HEROES = 8
MAX_RATS = 8


@cache
def _preset_file(name: str, seats: int) -> dict[str, Any]:
    path = LAYOUT_DIR / f"{name}-{seats}.json"
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def preset(name: str, seats: int, pieces: str) -> dict[str, Any]:
    """The preset ``name`` for ``seats`` players with the piece set ``pieces``, as a fresh dict."""
    raw = _preset_file(name, seats)
    chosen = raw["pieces"][pieces]
    return {
        "name": name,
        "walls": list(raw["walls"]),
        "stairways": list(raw["stairways"]),
        "heroes": list(chosen["heroes"]),
        "giant": chosen.get("giant"),
        "rats": [dict(r) for r in chosen["rats"]],
    }


def preset_info(name: str, seats: int) -> dict[str, Any]:
    """The whole preset file (title, symmetry note, both piece sets) for documentation and tests."""
    return json.loads(json.dumps(_preset_file(name, seats)))


def _square_errors(value: Any, what: str) -> list[str]:
    if not isinstance(value, str) or value not in SQUARE_SET:
        return [f"{what}: {value!r} is not a square (a1 to h8)."]
    return []


def layout_validate(layout: Any, seats: int | None = None) -> list[str]:
    """Every reason ``layout`` cannot start a game (empty when it can), in sentences a person can read.

    Walls must be interior edges (the rim is not a wall), named once each; one stairway per seat on
    distinct squares; at least one hero; every piece on its own square and none on a stairway; rat
    groups of 1 or 4 rats.
    """
    if not isinstance(layout, dict):
        return ["A layout is a JSON object with walls, stairways, heroes, giant and rats."]
    errors: list[str] = []
    known = {"name", "walls", "stairways", "heroes", "giant", "rats"}
    unknown = sorted(set(layout) - known)
    if unknown:
        errors.append(f"Unknown layout fields: {', '.join(map(str, unknown))}.")
    if "name" in layout and not isinstance(layout["name"], str):
        errors.append("The layout's name must be text.")

    walls = layout.get("walls", [])
    if not isinstance(walls, list):
        errors.append("walls must be a list of wall names such as c3e or c3n.")
        walls = []
    seen_walls: set[str] = set()
    for raw in walls:
        edge = canonical_wall(raw) if isinstance(raw, str) else None
        if edge is None:
            errors.append(
                f"Wall {raw!r} is not an edge between two squares (the board's rim holds no walls)."
            )
        elif edge in seen_walls:
            errors.append(f"Wall {raw!r} is named twice (walls may not overlap).")
        else:
            seen_walls.add(edge)

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

    occupied: dict[str, str] = {}

    def place(sq: Any, what: str) -> None:
        problems = _square_errors(sq, what)
        if problems:
            errors.extend(problems)
            return
        if sq in stairways:
            errors.append(f"{what} starts on the stairway {sq}; pieces start off the stairways.")
        if sq in occupied:
            errors.append(f"{what} and {occupied[sq]} share {sq}; every piece starts on its own square.")
        else:
            occupied[sq] = what

    heroes = layout.get("heroes")
    if not isinstance(heroes, list) or not heroes:
        errors.append("heroes must list at least one square.")
        heroes = []
    if len(heroes) > MAX_HEROES:
        errors.append(f"At most {MAX_HEROES} heroes.")
    for i, sq in enumerate(heroes):
        place(sq, f"Hero {i + 1}")

    giant = layout.get("giant")
    if giant is not None:
        place(giant, "The giant")

    rats = layout.get("rats", [])
    if not isinstance(rats, list):
        errors.append('rats must be a list of {"square": ..., "size": 1 or 4}.')
        rats = []
    if len(rats) > MAX_RATS:
        errors.append(f"At most {MAX_RATS} rat groups.")
    for i, group in enumerate(rats):
        what = f"Rat group {i + 1}"
        if not isinstance(group, dict) or set(group) != {"square", "size"}:
            errors.append(f'{what} must be {{"square": ..., "size": 1 or 4}}.')
            continue
        if group["size"] not in RAT_SIZES or type(group["size"]) is not int:
            errors.append(f"{what} must have 1 or 4 rats.")
        place(group["square"], what)
    return errors


def normalised(layout: dict[str, Any]) -> dict[str, Any]:
    """A valid layout with canonical wall names in board order, ready to start from."""
    walls = sorted({canonical_wall(w) or "" for w in layout.get("walls", [])}, key=EDGE_ORDER.__getitem__)
    return {
        "name": str(layout.get("name", "custom")),
        "walls": walls,
        "stairways": list(layout["stairways"]),
        "heroes": list(layout["heroes"]),
        "giant": layout.get("giant"),
        "rats": [{"square": r["square"], "size": r["size"]} for r in layout.get("rats", [])],
    }
