"""Every number and card of The Great Wall: Black Powder as this engine plays it.

The digest ``seeds/greatwall.md`` lists the same tables and says which parts come from the seed (the
Black Powder expansion) and which are our decisions for the compact base game under it.
"""

from __future__ import annotations

from typing import Any

# --- the board -------------------------------------------------------------------------------------
SECTIONS = "ABC"  # wall sections, left to right
ROWS = 3  # Horde rows in front of each section; row 1 is the nearest to the wall
SPOTS = 9  # a Horde card's vital-spot grid is 3 x 3, spots 1-9 in reading order
MAX_LEVEL = 4  # wall levels per section; every section at 4 completes the wall
DEFENCE_PER_LEVEL = 2  # the Defence of a section: 2 per wall level, +1 per soldier on its Firing spots
ASSAULT_ROWS = 2  # the Hordes of rows 1 and 2 make up the Offensive Power; row 3 waits
START_LEVEL = 1  # seed: no barricades, a 1st level wall in each section
FIRING_SPOTS = 2  # per section, usable while the section has at least one wall level
MACHINES_PER_SECTION = 2  # seed
TOWERS = 4  # seed: four towers, one Spearman each
# Tower t stands next to these sections: at both ends of the wall and between neighbouring sections.
TOWER_SECTIONS: tuple[tuple[int, ...], ...] = ((0,), (0, 1), (1, 2), (2,))
SECTION_TOWERS: tuple[tuple[int, ...], ...] = ((0, 1), (1, 2), (2, 3))

# --- the calendar ----------------------------------------------------------------------------------
YEARS = 6  # time runs out after the Winter of year 6
CLERKS = 3  # clerks per general and year
OVERSEER_MAX = 2
SETUP_UPGRADES = 3  # seed: three Overseers upgraded to level 1 at setup
SHAME_BASE, SHAME_PER_SEAT = 6, 6  # the Shame pool: 6 + 6 per player
SHAME_PENALTY = 2  # each Shame token costs 2 Honor at the end
SNAKE_TOKENS = 6  # seed: six Snake Clan tokens

RESOURCES = ("wood", "stone", "gold", "chi")
START_RESOURCES = {"wood": 2, "stone": 2, "gold": 2, "chi": 1}

LOCATIONS = ("wood", "stone", "gold", "chi", "barracks", "builders")
LOCATION_NAMES = {
    "wood": "Lumber Camp",
    "stone": "Quarry",
    "gold": "Gold Mine",
    "chi": "Monastery",
    "barracks": "Barracks",
    "builders": "Builders' Encampment",
}
LOCATION_GAIN = {"wood": 2, "stone": 2, "gold": 2, "chi": 1}  # plus the visitor's Overseer level
BARRACKS_ORDERS = 3  # recruits and attacks per Barracks visit, plus the Overseer level

# --- soldiers --------------------------------------------------------------------------------------
CLANS = ("monkey", "panda", "dragon", "snake", "turtle")
CLAN_NAMES = {c: c.capitalize() + " Clan" for c in CLANS}
CLAN_SPECIAL = {
    "monkey": "monk",
    "panda": "bomber",
    "dragon": "flamethrower",
    "snake": "crossbowman",
    "turtle": "tank",
}
BASE_SOLDIERS = ("spearman", "archer", "horseman")
SOLDIER_ORDER = ("spearman", "archer", "horseman", "monk", "bomber", "flamethrower", "crossbowman", "tank")
SOLDIER_NAMES = {
    "spearman": "Spearman",
    "archer": "Archer",
    "horseman": "Horseman",
    "monk": "Warrior Monk",
    "bomber": "Bomber",
    "flamethrower": "Flamethrower",
    "crossbowman": "Crossbowman",
    "tank": "Tank",
}
SOLDIER_LETTER = {
    "spearman": "S",
    "archer": "A",
    "horseman": "H",
    "monk": "M",
    "bomber": "B",
    "flamethrower": "F",
    "crossbowman": "X",
    "tank": "T",
}
# kind: "cover" soldiers stand on a vital spot of a Horde card in one of ``rows``; "fire" soldiers take a
# Firing spot on the wall and wound a Horde card of that section; the Tank covers a 2 x 2 block.
SOLDIERS: dict[str, dict[str, Any]] = {
    "spearman": {"cost": {"wood": 1}, "kind": "cover", "rows": (1,)},
    "archer": {"cost": {"wood": 1, "gold": 1}, "kind": "fire", "rows": ()},
    "horseman": {"cost": {"gold": 2}, "kind": "cover", "rows": (1, 2)},
    "monk": {"cost": {"chi": 2, "gold": 1}, "kind": "cover", "rows": (1, 2, 3)},
    "bomber": {"cost": {"wood": 1, "stone": 1, "gold": 1}, "kind": "fire", "rows": ()},
    "flamethrower": {"cost": {"gold": 3, "chi": 1}, "kind": "cover", "rows": (1,)},
    "crossbowman": {"cost": {"wood": 2, "gold": 2}, "kind": "fire", "rows": ()},
    "tank": {"cost": {"wood": 2, "stone": 2, "gold": 2}, "kind": "tank", "rows": (1,)},
}
START_SUPPLY = {"spearman": 5, "archer": 3, "horseman": 3}  # plus the clan's 3 special soldiers
START_RESERVE = {"spearman": 1, "archer": 1}
SPECIAL_COUNT = 3  # seed: three special soldiers per clan
SAVE_COST = "chi"  # one Chi saves one Killed soldier
ARCHER_SUPPORT_HONOR = 2  # per Archer in a Firing spot when a Horde card of its section is defeated
TANK_ANCHORS = (1, 2, 4, 5)  # the top-left spot of each 2 x 2 block inside the grid

# --- building --------------------------------------------------------------------------------------
LEVEL_COST = {"wood": 1, "stone": 2}
LEVEL_HONOR = 2
MACHINE_ORDER = ("ballista", "cannon", "rocket")
MACHINE_NAMES = {"ballista": "Ballista", "cannon": "Cannon", "rocket": "Rocket Launcher"}
MACHINE_MODELS = 2  # seed: six models, two of each type
MACHINE_BUILD_HONOR = 4  # seed
# Seed: Ballista 4, Cannon 2 + 2, Rocket Launcher 4 to build; shots: none, 2, 1 (the resources are ours).
MACHINES: dict[str, dict[str, Any]] = {
    "ballista": {"build": {"wood": 4}, "shot": {}, "honor": 0},
    "cannon": {"build": {"stone": 2, "gold": 2}, "shot": {"gold": 2}, "honor": 1},
    "rocket": {"build": {"stone": 4}, "shot": {"chi": 1}, "honor": 2},
}
# The Cannon Shot card: its wounds in order. The Ballista deals the first two, the Cannon all four.
CANNON_SHOT = (5, 2, 4, 6)
BALLISTA_WOUNDS = 2
# The Rocket deck: twelve War Machine Shot cards, each the spots it wounds.
ROCKET_CARDS: dict[str, tuple[int, ...]] = {
    "bullseye": (5,),
    "diagonal": (1, 5, 9),
    "counter-diagonal": (3, 5, 7),
    "column": (2, 5, 8),
    "row": (4, 5, 6),
    "top": (1, 2, 3),
    "bottom": (7, 8, 9),
    "left": (1, 4, 7),
    "right": (3, 6, 9),
    "diamond": (2, 4, 6, 8),
    "corners": (1, 3, 7, 9),
    "dud": (),
}
ROCKET_ORDER = tuple(ROCKET_CARDS)

# --- Hordes ----------------------------------------------------------------------------------------
# spots: the vital spots that exist; rewards: spot -> what a soldier covering it gains (1 of it);
# power: Offensive Power in the Assault; honor: gained by the player who claims the defeated card.
HORDES: dict[str, dict[str, Any]] = {
    "scouts": {"name": "Scouts", "power": 1, "honor": 2, "spots": (2, 4, 6, 8), "rewards": {2: "wood"}},
    "raiders": {"name": "Raiders", "power": 1, "honor": 2, "spots": (1, 3, 5, 7, 9), "rewards": {5: "gold"}},
    "wolves": {"name": "Wolf Riders", "power": 2, "honor": 3, "spots": (1, 2, 3, 5), "rewards": {2: "honor"}},
    "shields": {
        "name": "Shield Wall",
        "power": 2,
        "honor": 3,
        "spots": (4, 5, 6, 7, 8, 9),
        "rewards": {5: "stone", 8: "honor"},
    },
    "berserkers": {"name": "Berserkers", "power": 3, "honor": 4, "spots": (2, 5, 8), "rewards": {5: "honor"}},
    "horsearchers": {
        "name": "Horse Archers",
        "power": 2,
        "honor": 3,
        "spots": (1, 3, 4, 6),
        "rewards": {1: "chi"},
    },
    "warband": {
        "name": "Warband",
        "power": 3,
        "honor": 4,
        "spots": (1, 2, 4, 5, 6, 8),
        "rewards": {2: "wood", 5: "honor"},
    },
    "shamans": {"name": "Shamans", "power": 1, "honor": 3, "spots": (2, 4, 5, 6), "rewards": {5: "chi"}},
    # Black Powder: the four new types (the seed's abilities; the numbers are ours).
    "ram": {
        "name": "Battering Ram",
        "power": 2,
        "honor": 4,
        "spots": (2, 4, 5, 6, 8),
        "rewards": {5: "honor"},
    },
    "trebuchet": {
        "name": "Siege Trebuchet",
        "power": 1,
        "honor": 5,
        "spots": (1, 2, 3, 5),
        "rewards": {2: "honor"},
    },
    "ladders": {
        "name": "Siege Ladders",
        "power": 1,
        "honor": 3,
        "spots": (1, 4, 7, 9),
        "rewards": {4: "wood"},
    },
    "elite": {
        "name": "Elite",
        "power": 3,
        "honor": 5,
        "spots": (1, 2, 3, 4, 5, 6),
        "rewards": {2: "honor", 5: "honor"},
    },
}
BASE_HORDES = ("scouts", "raiders", "wolves", "shields", "berserkers", "horsearchers", "warband", "shamans")
NEW_HORDES = ("ram", "trebuchet", "ladders", "elite")
HORDE_ORDER = BASE_HORDES + NEW_HORDES
HORDE_COPIES = 3  # three cards of every type
REMOVED_TYPES = 3  # seed: three base types leave the deck at random

# --- Command and Advisor cards ---------------------------------------------------------------------
COMMANDS = {"vanguard": 4, "tribute": 3, "meditation": 2, "counsel": 1}  # name -> strength
COMMAND_ORDER = tuple(COMMANDS)
COMMAND_NAMES = {
    "vanguard": "Vanguard",
    "tribute": "Tribute",
    "meditation": "Meditation",
    "counsel": "Counsel",
}
COMMAND_TEXT = {
    "vanguard": "no effect",
    "tribute": "gain 1 wood and 1 gold",
    "meditation": "upgrade 1 Overseer",
    "counsel": "draw 1 Advisor",
}
ADVISORS: dict[str, dict[str, Any]] = {
    "quartermaster": {"name": "Quartermaster", "set": "base", "text": "gain 2 wood and 1 stone"},
    "treasurer": {"name": "Treasurer", "set": "base", "text": "gain 2 gold"},
    "sage": {"name": "Sage", "set": "base", "text": "gain 2 chi"},
    "drillmaster": {"name": "Drill Master", "set": "base", "text": "a free Spearman to your reserve"},
    "engineer": {"name": "Engineer", "set": "black powder", "text": "shoot any War Machine for free"},
    "warden": {"name": "Tower Warden", "set": "black powder", "text": "a Spearman into any Tower"},
    "fortifier": {"name": "Fortifier", "set": "black powder", "text": "build a Wall level for free"},
    "powder": {"name": "Powder Merchant", "set": "black powder", "text": "gain 2 stone"},
}
ADVISOR_ORDER = tuple(ADVISORS)
ADVISOR_COPIES = 3
ADVISOR_HAND = 2  # seed: two face-down Advisors each at setup
