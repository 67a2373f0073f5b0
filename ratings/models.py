"""Per-game skill ratings (OpenSkill, Plackett-Luce) and the history that produced them.

``RatedMatch`` is the list of results that count, in the order they are applied (the match's finishing
time, then its id); ``RatingChange`` is one player's step in one of them, unique per match and user, so
a result can never be counted twice. ``Rating`` is where each player stands now: always what replaying
the game's ``RatedMatch`` rows in order gives.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.engines import registry
from games.models import Match


class RatingBoard(models.Model):
    """One row per game: every rating change of that game locks it first, so they apply one by one."""

    game = models.CharField(max_length=32, unique=True, choices=registry.choices)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"ratings of {self.game}"


class Rating(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=32, choices=registry.choices)
    mu = models.FloatField(help_text="Estimated skill.")
    sigma = models.FloatField(help_text="Uncertainty of the estimate (one standard deviation).")
    # mu - 3 sigma: the leaderboard's order; a newcomer's wide uncertainty keeps them low until proven.
    ordinal = models.FloatField(db_index=True)
    matches = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="rating_once_per_user_game")]
        indexes = [models.Index(fields=["game", "-ordinal"], name="rating_leaderboard")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game}: {self.ordinal:.1f}"


class RatedMatch(models.Model):
    """A finished match that counts, with the result as it was rated (teams of users and their ranks)."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="rated_result")
    game = models.CharField(max_length=32, choices=registry.choices)
    finished_at = models.DateTimeField()
    # [{"users": [user ids], "rank": 1}, ...]: 1 is first, equal ranks tie.
    teams = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["finished_at", "match_id"]
        indexes = [models.Index(fields=["game", "finished_at", "match"], name="ratedmatch_game_order")]
        verbose_name_plural = "rated matches"

    def __str__(self) -> str:
        return f"rated match {self.match_id} ({self.game})"


class RatingChange(models.Model):
    rated_match = models.ForeignKey(RatedMatch, on_delete=models.CASCADE, related_name="changes")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=32, choices=registry.choices)
    rank = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    ordinal_after = models.FloatField()
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["finished_at", "match_id"]
        constraints = [models.UniqueConstraint(fields=["match", "user"], name="ratingchange_once_per_match")]
        indexes = [models.Index(fields=["user", "game", "finished_at"], name="ratingchange_history")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.match_id}: {self.mu_before:.1f} -> {self.mu_after:.1f}"

    @property
    def ordinal_before(self) -> float:
        return self.mu_before - 3 * self.sigma_before
