from __future__ import annotations

from datetime import timedelta

from django import forms

from games import bots
from games.engines import registry
from games.engines.base import Engine, OptionsInvalid
from games.models import Match
from games.text import TextCheckedForm, validate_one_line

CLOCK_FIELDS = [
    "move_time",
    "move_time_unit",
    "bank_initial_hours",
    "bank_increment_hours",
    "bank_max_hours",
    "pause_weekends",
    "timeout_policy",
]


class ClockForm(TextCheckedForm, forms.Form):
    """The clock of a match, as a new match and a league set it: the time per move, the reserve, weekends
    and what a timeout does."""

    move_time = forms.IntegerField(
        label="Time per move",
        min_value=1,
        max_value=720,
        required=False,
        initial=3,
        help_text="Empty for no limit.",
    )
    move_time_unit = forms.ChoiceField(
        label="Unit", choices=[("days", "days"), ("hours", "hours")], initial="days"
    )
    bank_initial_hours = forms.IntegerField(
        label="Reserve (hours)",
        min_value=0,
        max_value=24 * 60,
        required=False,
        help_text="Extra time each player may draw on once a move's time runs out; empty for none.",
    )
    bank_increment_hours = forms.IntegerField(
        label="Reserve added per move (hours)", min_value=0, max_value=24 * 7, required=False
    )
    bank_max_hours = forms.IntegerField(
        label="Reserve cap (hours)",
        min_value=1,
        max_value=24 * 60,
        required=False,
        help_text="The reserve never grows past this; empty for the starting reserve.",
    )
    pause_weekends = forms.BooleanField(label="Clocks stop at weekends", required=False)
    timeout_policy = forms.ChoiceField(
        label="When a player's time runs out",
        choices=Match.Timeout.choices,
        initial=Match.Timeout.SKIP,
        required=False,
    )


class MatchCreateForm(ClockForm):
    TIME_UNITS = {"hours": timedelta(hours=1), "days": timedelta(days=1)}
    field_order = [
        "game",
        "seat_count",
        "bot_count",
        "bot_level",
        "name",
        *CLOCK_FIELDS,
        "rated",
        "allow_takebacks",
    ]

    game = forms.ChoiceField(choices=registry.choices)
    seat_count = forms.IntegerField(label="Players", min_value=1, max_value=8, initial=2)
    bot_count = forms.IntegerField(
        label="Computer opponents",
        min_value=0,
        max_value=7,
        initial=0,
        required=False,
        help_text="Seats the computer takes at once; the others wait for players to join.",
    )
    bot_level = forms.ChoiceField(
        label="Computer strength",
        choices=bots.kinds,
        initial=bots.DEFAULT,
        required=False,
        # The bounds are the levels' time limits rounded up (games/bots/levels.py); a test holds them.
        help_text=(
            "Random moves: any legal move, picked at random. Easy, normal and hard look ahead, for up "
            "to a fifth of a second, one second and three seconds a move. Easy weighs only two dozen "
            "of its own moves, drawn at random, so it misses some good ones; hard weighs more of the "
            "opponents' replies."
        ),
    )
    name = forms.CharField(
        max_length=80,
        required=False,
        validators=[validate_one_line],
        help_text="Optional; shown in the lobby.",
    )
    rated = forms.BooleanField(
        label="Rated",
        required=False,
        initial=True,
        help_text="The result changes the players' ratings. Matches with computer opponents are never rated.",
    )
    allow_takebacks = forms.BooleanField(
        label="Allow takebacks in this rated match",
        required=False,
        help_text="A player may take back their last move if the others agree. Unrated matches always can.",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # One select per option of every game; the page shows the chosen game's and the view reads
        # only those, so adding a game adds its options here without touching this form.
        for slug in registry.slugs():
            engine = registry.get_engine(slug)
            for name, option in engine.options.items():
                self.fields[self.option_field(slug, name)] = forms.ChoiceField(
                    label=option.label,
                    choices=list(option.choices.items()),
                    initial=option.default,
                    required=False,
                )
            for name, text in engine.text_options.items():
                attrs = {"rows": 10, "spellcheck": "false", "class": "code"}
                if text.editor:
                    attrs["data-editor"] = text.editor
                self.fields[self.option_field(slug, name)] = forms.CharField(
                    label=text.label,
                    help_text=text.help,
                    required=False,
                    max_length=20_000,
                    strip=True,
                    widget=forms.Textarea(attrs=attrs),
                )

    @staticmethod
    def option_field(slug: str, name: str) -> str:
        return f"opt_{slug}_{name}"

    def option_fields_by_game(self) -> dict[str, list[forms.BoundField]]:
        fields = {}
        for slug in registry.slugs():
            engine = registry.get_engine(slug)
            names = [*engine.options, *engine.text_options]
            fields[slug] = [self[self.option_field(slug, name)] for name in names]
        return fields

    @staticmethod
    def option_examples() -> dict[str, dict[str, dict[int, dict[str, str]]]]:
        """Starting points for the text options: game -> option -> seats -> label -> text."""
        examples: dict[str, dict[str, dict[int, dict[str, str]]]] = {}
        for slug in registry.slugs():
            engine = registry.get_engine(slug)
            for name in engine.text_options:
                examples.setdefault(slug, {})[name] = {
                    seats: engine.option_examples(name, seats=seats)
                    for seats in range(engine.min_players, engine.max_players + 1)
                }
        return examples

    def clean(self) -> dict:
        data = super().clean()
        slug = data.get("game")
        if slug:
            engine = registry.get_engine(slug)
            count = data.get("seat_count")
            if count is not None and not engine.min_players <= count <= engine.max_players:
                self.add_error(
                    "seat_count",
                    f"{engine.title} is for {engine.min_players} to {engine.max_players} players.",
                )
            options = {
                name: data.get(self.option_field(slug, name)) or option.default
                for name, option in engine.options.items()
            }
            # A text option counts only when filled in (an empty layout box means "use the preset").
            for name in engine.text_options:
                if data.get(self.option_field(slug, name)):
                    options[name] = data[self.option_field(slug, name)]
            data["options"] = options
            if count is not None and not self.has_error("seat_count"):
                self._check_options(slug, engine, options, count)
        count = data.get("bot_count") or 0
        seats = data.get("seat_count")
        if seats is not None and count >= seats:
            self.add_error(
                "bot_count",
                f"At most {seats - 1} computer opponent{'' if seats == 2 else 's'} in a "
                f"{seats}-player match: one seat is yours.",
            )
        data["bots"] = [data.get("bot_level") or bots.DEFAULT] * count
        data["timeout_policy"] = data.get("timeout_policy") or Match.Timeout.SKIP
        hours = timedelta(hours=1)
        bank = data.get("bank_initial_hours")
        increment = data.get("bank_increment_hours")
        cap = data.get("bank_max_hours")
        data["bank_initial"] = bank * hours if bank else None
        data["bank_increment"] = increment * hours if increment else None
        data["bank_max"] = cap * hours if cap else None
        amount = data.get("move_time")
        data["move_time_limit"] = (
            amount * self.TIME_UNITS[data.get("move_time_unit") or "days"] if amount else None
        )
        return data

    def _check_options(self, slug: str, engine: Engine, options: dict[str, str], seats: int) -> None:
        """Every reason the game refuses these options, next to the option it is about."""
        try:
            engine.resolve_options(options, seats=seats)
        except OptionsInvalid as exc:
            field = self.option_field(slug, exc.option) if exc.option else None
            if field in self.fields:
                for reason in exc.reasons:
                    self.add_error(field, reason)
            else:
                self.add_error(None, str(exc))
        except ValueError as exc:
            self.add_error(None, str(exc))


class MoveForm(TextCheckedForm, forms.Form):
    move = forms.CharField(max_length=200, label="Move", strip=True)
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
