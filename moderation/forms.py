"""Forms of the moderation panel, the queue and the report page. The services check everything again;
the forms give each field its own error message on the page."""

from __future__ import annotations

from datetime import timedelta

from django import forms

from games.bots import LEVELS as BOT_LEVELS
from games.models import Match, Seat
from games.text import TextCheckedForm
from moderation.models import Report, Suspension
from moderation.services import MAX_REASON


class ReasonForm(TextCheckedForm, forms.Form):
    reason = forms.CharField(max_length=MAX_REASON, help_text="Public: the players read it in the match log.")
    report = forms.IntegerField(required=False, widget=forms.HiddenInput)


def _seat_choices(match: Match) -> list[tuple[str, str]]:
    seats = match.seats.select_related("user").filter(status=Seat.Status.PLAYING)
    return [(str(seat.position), f"{seat.position + 1}: {seat.player_name}") for seat in seats]


class SeatForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int, choices=())

    def __init__(self, *args, match: Match, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["seat"].choices = _seat_choices(match)


class ExtendForm(SeatForm):
    hours = forms.IntegerField(min_value=1, max_value=720, initial=24, help_text="1 to 720 hours.")


class HandOverForm(SeatForm):
    username = forms.CharField(required=False, max_length=150, label="To the player")
    bot = forms.ChoiceField(
        required=False,
        label="Or to the computer",
        choices=[("", "(not a computer)")] + [(kind, kind) for kind in BOT_LEVELS],
    )

    def clean(self) -> dict:
        data = super().clean()
        if bool(data.get("username", "").strip()) == bool(data.get("bot")):
            raise forms.ValidationError("Name one player or choose one computer opponent.")
        return data


class AdjudicateForm(ReasonForm):
    """One place per seat: 1 is first, equal places tie."""

    def __init__(self, *args, match: Match, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.seats = list(match.seats.select_related("user"))
        for seat in self.seats:
            self.fields[f"rank_{seat.position}"] = forms.IntegerField(
                min_value=1, max_value=len(self.seats), label=f"Place of {seat.player_name}"
            )

    def ranks(self) -> list[int]:
        return [self.cleaned_data[f"rank_{seat.position}"] for seat in self.seats]


class EndForm(ReasonForm):
    status = forms.ChoiceField(
        choices=[
            (Match.Status.ABANDONED, "Abandon: stop it without a result"),
            (Match.Status.CANCELLED, "Cancel: void it, a finished result too"),
        ]
    )


class SecretsForm(ReasonForm):
    reason = forms.CharField(
        max_length=MAX_REASON, help_text="Recorded, and shown in the match log: the players see you looked."
    )


UNITS = {"hours": timedelta(hours=1), "days": timedelta(days=1)}


class SuspendForm(TextCheckedForm, forms.Form):
    kind = forms.ChoiceField(choices=Suspension.Kind.choices)
    length = forms.IntegerField(min_value=1, max_value=3650, required=False)
    unit = forms.ChoiceField(choices=[("days", "days"), ("hours", "hours")], initial="days")
    forever = forms.BooleanField(required=False, label="For good (a ban only)")
    reason = forms.CharField(max_length=MAX_REASON, help_text="Shown to the user when they try to log in.")

    def clean(self) -> dict:
        data = super().clean()
        if data.get("forever"):
            if data.get("kind") != Suspension.Kind.BAN:
                raise forms.ValidationError("Only a ban can be for good; give a suspension a length.")
        elif not data.get("length"):
            raise forms.ValidationError("Give the length, or tick 'for good' for a ban.")
        return data

    def duration(self) -> timedelta | None:
        data = self.cleaned_data
        return None if data["forever"] else data["length"] * UNITS[data["unit"]]


class LiftForm(TextCheckedForm, forms.Form):
    reason = forms.CharField(max_length=MAX_REASON)


class ResolveForm(TextCheckedForm, forms.Form):
    note = forms.CharField(
        max_length=2000, widget=forms.Textarea(attrs={"rows": 2}), help_text="What was done, for moderators."
    )
    outcome = forms.ChoiceField(choices=[("resolve", "Resolved"), ("dismiss", "Dismissed: nothing to do")])


class ReportForm(TextCheckedForm, forms.Form):
    reported = forms.TypedChoiceField(coerce=int, choices=(), label="Player")
    reason = forms.ChoiceField(choices=Report.Reason.choices, label="What happened")
    details = forms.CharField(
        required=False, max_length=1000, widget=forms.Textarea(attrs={"rows": 3}), label="Details"
    )

    def __init__(self, *args, players: list[tuple[int, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reported"].choices = [(str(pk), name) for pk, name in players]
