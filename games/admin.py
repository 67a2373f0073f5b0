from __future__ import annotations

from django.contrib import admin

from games.models import Match, Move, Seat, Turn


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("position", "user", "bot", "status", "score", "rank")
    raw_id_fields = ("user",)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "name", "status", "seat_count", "version", "created_by", "updated_at")
    list_filter = ("game", "status")
    search_fields = ("id", "name", "seats__user__username")
    readonly_fields = ("version", "created_at", "started_at", "finished_at", "updated_at")
    # The engine state and the RNG state are server-only: the admin does not show them either.
    exclude = ("public_view", "engine_state", "rng_state", "seed")
    raw_id_fields = ("created_by", "rematch_of")
    inlines = [SeatInline]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    # A sealed move's notation (a secret bid) is hidden here too, and not searchable.
    list_display = ("match", "seq", "seat", "public_notation", "created_at")
    search_fields = ("match__id",)
    exclude = ("state_after", "events", "move", "notation", "notation_visible_to")
    readonly_fields = ("match", "seq", "seat", "public_notation", "created_at")


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = ("match", "seat", "number", "started_at", "deadline", "closed_at")
    list_filter = ("closed_at",)
    raw_id_fields = ("match", "seat")
