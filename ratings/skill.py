"""The rating arithmetic, apart from the database: OpenSkill's Plackett-Luce model over teams and ranks.

A two-player game is two teams of one; a free-for-all of four is four teams of one; The Wall's 2 against
2 is two teams of two. Ranks: 1 is first, equal ranks tie.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A cautious estimate (mu - 3 sigma): what the player is almost surely at least worth."""
        return self.mu - 3 * self.sigma


def initial() -> Skill:
    return Skill(mu=MODEL.mu, sigma=MODEL.sigma)


def rate(teams: list[list[Skill]], ranks: list[int]) -> list[list[Skill]]:
    """The skills after one result; same shape as ``teams``."""
    if len(teams) != len(ranks) or len(teams) < 2 or any(not team for team in teams):
        raise ValueError("A result needs at least two teams of at least one player, each with a rank.")
    rated = MODEL.rate(
        [[MODEL.rating(mu=skill.mu, sigma=skill.sigma) for skill in team] for team in teams],
        ranks=[float(rank) for rank in ranks],
    )
    return [[Skill(mu=player.mu, sigma=player.sigma) for player in team] for team in rated]
