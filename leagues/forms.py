from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms

from games.engines import registry
from games.forms import CLOCK_FIELDS, ClockForm
from games.text import TextCheckedForm
from leagues.models import League


class SeasonOpenForm(TextCheckedForm, forms.Form):
    starts_at = forms.DateTimeField(
        label="Sign-up closes and the season starts at",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"],
        help_text="In your time zone.",
    )


HOUR = timedelta(hours=1)
UNITS = {"days": timedelta(days=1), "hours": HOUR}


class LeagueForm(ClockForm):
    """A league's settings as the organiser types them; ``service_arguments`` turns them into what
    ``leagues.services`` takes. With ``league`` given it edits that league: the game and the address
    stay, and only that game's options are offered."""

    field_order = [
        "name",
        "slug",
        "game",
        "description",
        "players_per_match",
        *CLOCK_FIELDS,
        "division_size",
        "meetings",
        "points_by_place",
        "promotion_places",
    ]

    name = forms.CharField(max_length=80)
    slug = forms.SlugField(
        label="Address",
        max_length=80,
        required=False,
        help_text="The end of the league's address (/leagues/…/); empty: made from the name.",
    )
    game = forms.ChoiceField(choices=registry.choices)
    description = forms.CharField(
        max_length=2000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Optional: who it is for, when rounds are played, anything players should know.",
    )
    players_per_match = forms.IntegerField(label="Players a match", min_value=2, max_value=8, initial=2)
    division_size = forms.IntegerField(
        min_value=2,
        max_value=20,
        initial=8,
        help_text="Players a division aims at; the divisions share them out.",
    )
    meetings = forms.IntegerField(
        label="Meetings",
        min_value=1,
        max_value=4,
        initial=1,
        help_text="How often each pair in a division meets.",
    )
    points_by_place = forms.CharField(
        max_length=200,
        required=False,
        help_text="Points for 1st, 2nd, … place, such as 3, 1, 0; empty: a point per player beaten.",
    )
    promotion_places = forms.IntegerField(
        min_value=0,
        max_value=10,
        initial=2,
        help_text="Players who go up from each division, and down from the one above, after a season.",
    )

    def __init__(self, *args: Any, league: League | None = None, **kwargs: Any) -> None:
        unbound = (args[0] if args else kwargs.get("data")) is None
        if league is not None and unbound:
            kwargs.setdefault("initial", self.initial_for(league))
        super().__init__(*args, **kwargs)
        self.fields["timeout_policy"].required = True  # a league's rule for every match it makes
        self.league = league
        if league is not None:
            del self.fields["slug"], self.fields["game"]
        # One select per option of every game (of the league's game when editing); the page shows
        # the chosen game's, and only those are read.
        for slug in [league.game] if league is not None else registry.slugs():
            for name, option in registry.get_engine(slug).options.items():
                self.fields[self.option_field(slug, name)] = forms.ChoiceField(
                    label=option.label,
                    choices=list(option.choices.items()),
                    initial=option.default,
                    required=False,
                )

    @staticmethod
    def option_field(slug: str, name: str) -> str:
        return f"opt_{slug}_{name}"

    @classmethod
    def initial_for(cls, league: League) -> dict[str, Any]:
        limit = league.move_time_limit
        in_days = limit is not None and limit % UNITS["days"] == timedelta(0)
        initial: dict[str, Any] = {
            "name": league.name,
            "description": league.description,
            "players_per_match": league.players_per_match,
            "move_time": None if limit is None else (limit // UNITS["days"] if in_days else limit // HOUR),
            "move_time_unit": "days" if in_days or limit is None else "hours",
            "bank_initial_hours": _hours(league.bank_initial),
            "bank_increment_hours": _hours(league.bank_increment),
            "bank_max_hours": _hours(league.bank_max),
            "pause_weekends": league.pause_weekends,
            "timeout_policy": league.timeout_policy,
            "division_size": league.division_size,
            "meetings": league.meetings,
            "points_by_place": ", ".join(_number(points) for points in league.points_by_place or []),
            "promotion_places": league.promotion_places,
        }
        for name, value in (league.options or {}).items():
            initial[cls.option_field(league.game, name)] = value
        return initial

    def option_fields_by_game(self) -> dict[str, list[forms.BoundField]]:
        games = [self.league.game] if self.league is not None else registry.slugs()
        return {
            slug: [self[self.option_field(slug, name)] for name in registry.get_engine(slug).options]
            for slug in games
        }

    def clean_points_by_place(self) -> list[float]:
        text = self.cleaned_data.get("points_by_place") or ""
        parts = [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]
        try:
            values = [float(part) for part in parts]
        except ValueError:
            raise forms.ValidationError("Write numbers separated by commas, such as 3, 1, 0.") from None
        if any(value != value or value in (float("inf"), float("-inf")) for value in values):
            raise forms.ValidationError("Write numbers separated by commas, such as 3, 1, 0.")
        return [int(value) if value.is_integer() else value for value in values]

    def service_arguments(self) -> dict[str, Any]:
        """The cleaned settings as keyword arguments of ``league_create`` / ``league_update``."""
        data = self.cleaned_data
        game = self.league.game if self.league is not None else data["game"]
        engine = registry.get_engine(game)
        amount = data.get("move_time")
        arguments: dict[str, Any] = {
            "name": data["name"],
            "description": data.get("description") or "",
            "players_per_match": data["players_per_match"],
            "options": {
                name: data.get(self.option_field(game, name)) or option.default
                for name, option in engine.options.items()
            },
            "move_time_limit": amount * UNITS[data.get("move_time_unit") or "days"] if amount else None,
            "bank_initial": _duration(data.get("bank_initial_hours")),
            "bank_increment": _duration(data.get("bank_increment_hours")),
            "bank_max": _duration(data.get("bank_max_hours")),
            "pause_weekends": data.get("pause_weekends", False),
            "timeout_policy": data["timeout_policy"],
            "division_size": data["division_size"],
            "meetings": data["meetings"],
            "points_by_place": data.get("points_by_place") or [],
            "promotion_places": data["promotion_places"],
        }
        if self.league is None:
            arguments["game"] = game
            arguments["slug"] = data.get("slug") or ""
        return arguments


class LeagueCloseForm(TextCheckedForm, forms.Form):
    note = forms.CharField(
        label="Why it closes",
        max_length=200,
        help_text="Shown on the league's page.",
    )


def _duration(hours: int | None) -> timedelta | None:
    return hours * HOUR if hours else None


def _hours(value: timedelta | None) -> int | None:
    return None if value is None else int(value // HOUR)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
