"""Ratings are derived data: the admin shows them read-only (voiding a match or `ratings_rebuild`
changes them, never a hand edit)."""

from __future__ import annotations

from django.contrib import admin

from ratings.models import RatedMatch, Rating, RatingChange


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnly):
    list_display = ("user", "game", "ordinal", "mu", "sigma", "matches", "updated_at")
    list_filter = ("game",)
    search_fields = ("user__username",)
    ordering = ("game", "-ordinal")


class RatingChangeInline(admin.TabularInline):
    model = RatingChange
    fields = ("user", "rank", "mu_before", "sigma_before", "mu_after", "sigma_after")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(RatedMatch)
class RatedMatchAdmin(ReadOnly):
    list_display = ("match", "game", "finished_at")
    list_filter = ("game",)
    search_fields = ("match__id", "match__name", "changes__user__username")
    readonly_fields = ("match", "game", "finished_at", "teams")
    inlines = [RatingChangeInline]
