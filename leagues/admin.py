from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils import timezone

from games.errors import ServiceError
from games.text import TextCheckedForm
from leagues import services
from leagues.models import Entry, Fixture, FixturePlayer, League, Season


class LeagueForm(TextCheckedForm, forms.ModelForm):
    class Meta:
        model = League
        # The address and the game are set once; everything else is what may change between seasons.
        fields = ["name", "slug", "game", *[name for name in services.SETTINGS if name != "name"]]

    def clean(self) -> dict:
        data = super().clean()
        if self.errors:
            return data
        league = League(**data)
        try:
            services.league_check(league)
        except ServiceError as exc:
            raise forms.ValidationError(exc.message) from None
        data["options"] = league.options
        return data


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    form = LeagueForm
    list_display = ("name", "game", "players_per_match", "division_size", "created_by", "created_at")
    list_filter = ("game",)
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    # The organiser is whoever adds the league here; the form does not ask.
    readonly_fields = ("created_by", "created_at", "closed_at", "closed_note")

    def get_readonly_fields(self, request, obj: League | None = None) -> tuple[str, ...]:
        return self.readonly_fields if obj is not None else ()

    def save_model(self, request, obj: League, form, change: bool) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("league", "number", "status", "starts_at", "started_at", "finished_at")
    list_filter = ("status", "league")
    search_fields = ("league__name",)
    readonly_fields = ("status", "started_at", "finished_at", "note")
    actions = ["start_now"]

    @admin.action(description="Close sign-up and create the fixtures now")
    def start_now(self, request, queryset) -> None:
        now = timezone.now()
        for season in queryset.filter(status=Season.Status.SIGNUP):
            Season.objects.filter(pk=season.pk).update(starts_at=now)
            outcome = services.season_start(season_id=season.pk, now=now)
            self.message_user(request, f"{season}: {outcome}.", messages.INFO)


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ("user", "season", "division", "position", "points", "played", "movement")
    list_filter = ("season__league", "season__status", "movement")
    search_fields = ("user__username", "season__league__name")
    raw_id_fields = ("user", "season", "division")


class FixturePlayerInline(admin.TabularInline):
    model = FixturePlayer
    fields = ("user", "position", "rank", "points", "forfeited")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Fixture)
class FixtureAdmin(admin.ModelAdmin):
    list_display = ("__str__", "match", "status", "finished_at")
    list_filter = ("status", "division__season__league")
    search_fields = ("match__id", "players__user__username")
    readonly_fields = ("division", "round", "table", "match", "status", "finished_at")
    inlines = [FixturePlayerInline]

    def has_add_permission(self, request, obj=None) -> bool:
        return False
