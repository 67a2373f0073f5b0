from __future__ import annotations

from django import forms

from games.text import TextCheckedForm


class SeasonOpenForm(TextCheckedForm, forms.Form):
    starts_at = forms.DateTimeField(
        label="Sign-up closes and the season starts at",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"],
        help_text="In your time zone.",
    )
