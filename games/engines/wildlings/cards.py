"""The card data of Wildlings at the Wall: the three Westeros decks and the nine wildling cards.

Plain data, read by the rules and the picture alike; every text is ours (``seeds/wildlings.md`` explains
each card and the decisions behind its translation onto this game's economy).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WesterosCard:
    key: str
    name: str
    icon: bool  # a wildling icon: the threat rises one space when the card is drawn
    text: str


@dataclass(frozen=True)
class WildlingCard:
    key: str
    name: str
    reward: str  # the Night's Watch wins: for the highest bidder
    severe: str  # the wildlings win: for the lowest bidder
    lesser: str  # the wildlings win: for every other House


DECK_NAMES: tuple[str, ...] = ("I", "II", "III")

WESTEROS: dict[str, WesterosCard] = {
    card.key: card
    for card in (
        WesterosCard("supply", "Supply", False, "Every House sets its Supply to its Castles (at most 6)."),
        WesterosCard("muster", "Muster", False, "Every House with room under its Supply recruits a footman."),
        WesterosCard(
            "blades", "A Throne of Blades", True, "The Iron Throne chooses: Supply, Muster or nothing."
        ),
        WesterosCard("winter", "Winter Is Coming", False, "The deck is reshuffled and drawn again."),
        WesterosCard("summer", "Last Days of Summer", True, "Nothing happens."),
        WesterosCard(
            "clash", "Clash of Kings", False, "The Houses bid Power for the three influence tracks."
        ),
        WesterosCard(
            "thrones", "Game of Thrones", False, "Every House gains 1 Power per 2 Castles (rounded up)."
        ),
        WesterosCard(
            "dark_wings",
            "Dark Wings, Dark Words",
            True,
            "The King's Court chooses: Clash of Kings, Game of Thrones or nothing.",
        ),
        WesterosCard("attack", "Wildlings Attack", False, "The wildlings attack at the threat's strength."),
        WesterosCard("sea", "Sea of Storms", True, "No raid orders this round."),
        WesterosCard("rains", "Rains of Autumn", True, "No march orders this round."),
        WesterosCard("feast", "Feast for Crows", True, "No consolidate orders this round."),
        WesterosCard("web", "Web of Lies", True, "No muster orders this round."),
        WesterosCard("storm", "Storm of Swords", True, "No defend orders this round."),
        WesterosCard(
            "sword",
            "Put to the Sword",
            False,
            "The Fiefdoms holder chooses: no defend orders, no march orders, or nothing.",
        ),
    )
}

# Ten cards per deck; the icon counts follow the original decks: 3, 3 and 5 (III also holds three
# "Wildlings Attack").
DECKS: dict[str, tuple[str, ...]] = {
    "I": ("supply",) * 3 + ("muster",) * 3 + ("blades",) * 2 + ("winter", "summer"),
    "II": ("clash",) * 3 + ("thrones",) * 3 + ("dark_wings",) * 2 + ("winter", "summer"),
    "III": ("attack",) * 3 + ("sea", "rains", "feast", "web", "storm") + ("sword",) * 2,
}

# Orders a restriction card forbids this round.
RESTRICTIONS: dict[str, str] = {
    "sea": "raid",
    "rains": "march",
    "feast": "consolidate",
    "web": "muster",
    "storm": "defend",
}

WILDLINGS: dict[str, WildlingCard] = {
    card.key: card
    for card in (
        WildlingCard(
            "silence", "Silence at the Wall", "Nothing happens.", "Nothing happens.", "Nothing happens."
        ),
        WildlingCard(
            "preemptive",
            "Preemptive Raid",
            "The wildlings attack again at once with strength 6; the highest bidder takes no part.",
            "Chooses: lose 2 levies, or drop 2 places on its best influence track.",
            "Nothing happens.",
        ),
        WildlingCard(
            "crow_killers",
            "Crow Killers",
            "Up to 2 of its footmen become knights.",
            "All its knights become footmen.",
            "2 knights become footmen.",
        ),
        WildlingCard(
            "rattleshirt",
            "Rattleshirt's Raiders",
            "Supply rises by 1.",
            "Supply falls by 2.",
            "Supply falls by 1.",
        ),
        WildlingCard(
            "milkwater",
            "Massing on the Milkwater",
            "Takes every discarded House card of its own back into its hand.",
            "With more than one card in hand, discards all cards of its highest strength.",
            "With more than one card in hand, discards one card of its choice.",
        ),
        WildlingCard(
            "king",
            "A King Beyond the Wall",
            "Moves to the top of one influence track of its choice.",
            "Moves to the bottom of all three influence tracks.",
            "Moves to the bottom of Fiefdoms or King's Court, its choice.",
        ),
        WildlingCard(
            "mammoth",
            "Mammoth Riders",
            "Takes one discarded House card of its choice back into its hand.",
            "Loses 3 levies.",
            "Loses 2 levies.",
        ),
        WildlingCard(
            "horde",
            "The Horde Descends",
            "Musters at once: a knight or two footmen.",
            "Loses 2 levies.",
            "Loses 1 levy.",
        ),
        WildlingCard(
            "skinchanger",
            "Skinchanger Scout",
            "Gets its whole bid back.",
            "Loses all its Power.",
            "Loses 2 Power.",
        ),
    )
}

TRACK_NAMES: dict[str, str] = {"throne": "Iron Throne", "fiefdoms": "Fiefdoms", "court": "King's Court"}
