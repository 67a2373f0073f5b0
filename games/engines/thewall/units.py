"""Every kind of unit of The Wall with the seed's stat line, and what each kind may do."""

from __future__ import annotations

from dataclasses import dataclass

from games.engines.thewall.board import HUMAN, OTHER, WIGHT

JON, GREAT, MANCE, WAYMAR = "jon", "great", "mance", "waymar"
LEADERS: tuple[str, ...] = (JON, GREAT, MANCE, WAYMAR)  # the order of leader turns in a round
LEADER_NAMES = {JON: "Jon Snow", GREAT: "the Great Other", MANCE: "Mance Rayder", WAYMAR: "Waymar Royce"}
WATCH, OTHERS = "watch", "others"
SIDE_OF = {JON: WATCH, MANCE: WATCH, GREAT: OTHERS, WAYMAR: OTHERS}
SIDE_NAMES = {WATCH: "the Night's Watch and the Wildlings", OTHERS: "the Others"}


@dataclass(frozen=True)
class Kind:
    label: str
    leader: str | None
    category: str
    att: int
    dfn: int
    mov: int
    rng: int
    life: int
    slayer: bool = False  # dragonglass or Valyrian steel: may kill a true Other
    brother: bool = False  # a (former) brother of the Night's Watch
    trained: bool = True
    letter: str = "?"


KINDS: dict[str, Kind] = {
    "jon": Kind("Jon Snow", JON, HUMAN, 4, 4, 3, 3, 4, slayer=True, brother=True, letter="J"),
    "sam": Kind("Samwell Tarly", JON, HUMAN, 2, 4, 2, 2, 3, slayer=True, brother=True, letter="S"),
    "ranger": Kind("Ranger", JON, HUMAN, 3, 2, 3, 2, 3, brother=True, letter="R"),
    "archer": Kind("Archer", JON, HUMAN, 3, 2, 2, 3, 3, brother=True, letter="A"),
    "brother": Kind("Untrained Brother", JON, HUMAN, 1, 1, 1, 1, 3, brother=True, trained=False, letter="b"),
    "mance": Kind("Mance Rayder", MANCE, HUMAN, 4, 4, 3, 3, 4, slayer=True, letter="M"),
    "wildling": Kind("Wildling", MANCE, HUMAN, 2, 4, 3, 2, 3, letter="W"),
    # Wandering Wildlings are untrained Wildlings that no army has acquired yet (leader None).
    "untrained": Kind("Untrained Wildling", MANCE, HUMAN, 1, 1, 1, 1, 3, trained=False, letter="u"),
    "great_other": Kind("Great Other", GREAT, OTHER, 5, 4, 2, 0, 4, letter="G"),
    "white_walker": Kind("White Walker", GREAT, OTHER, 4, 4, 2, 0, 4, letter="O"),
    "waymar": Kind("Waymar Royce", WAYMAR, WIGHT, 4, 3, 2, 0, 4, brother=True, letter="Y"),
    "wight_watch": Kind("Wight (Night's Watch)", WAYMAR, WIGHT, 3, 2, 2, 0, 3, brother=True, letter="w"),
    "wight_wildling": Kind("Wight (Wildling)", WAYMAR, WIGHT, 2, 3, 3, 0, 3, letter="w"),
    # A unit raised from a corpse: the stats it had when it died, three life points; a raised brother
    # of the Watch may still sneak.
    "risen": Kind("Wight", WAYMAR, WIGHT, 0, 0, 1, 0, 3, letter="w"),
    "risen_brother": Kind("Wight", WAYMAR, WIGHT, 0, 0, 1, 0, 3, brother=True, letter="w"),
}
NIGHTS_WATCH = frozenset({"jon", "sam", "ranger", "archer", "brother"})
TRAINED_BROTHERS = frozenset({"jon", "sam", "ranger", "archer"})
TRAINED_WILDLINGS = frozenset({"mance", "wildling"})
TRUE_OTHERS = frozenset({"great_other", "white_walker"})
RAISED_LIFE = 3
MAX_TRUE_OTHERS = 4
TRAIN_JON = ("archer", "ranger")  # what an untrained brother may become
