from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts.models import User, time_zone_choices
from accounts.services import MAX_REMINDER_HOURS, MAX_REMINDERS
from games.text import TextCheckedForm


class SignupForm(TextCheckedForm, UserCreationForm):
    email = forms.EmailField(help_text="For password resets and, if you wish, turn notifications.")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this e-mail address already exists.")
        return email

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        if User.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError("That name is taken.")
        return username


class LoginForm(TextCheckedForm, AuthenticationForm):
    """Django's log-in form, refusing a name that is not text with the reason, before any account is
    looked up or a failure counted (accounts/lockout.py)."""


class AdminLoginForm(TextCheckedForm, AdminAuthenticationForm):
    """The admin's log-in form, with the same refusal (accounts/admin.py installs it)."""


class LongSelect(forms.Select):
    """A select whose options are written out here rather than through a template each: the time-zone
    list has some six hundred, and the per-option templates made the settings page take a fifth of a
    second. Same markup, attributes and selection as ``forms.Select``."""

    def render(self, name: str, value: Any, attrs: dict | None = None, renderer: Any = None) -> SafeString:
        widget = self.get_context(name, value, attrs)["widget"]
        options = format_html_join(
            "",
            '<option value="{}"{}>{}</option>',
            (
                (option["value"], " selected" if option["selected"] else "", option["label"])
                for _group, members, _index in widget["optgroups"]
                for option in members
            ),
        )
        attributes = flatatt(widget["attrs"])
        return format_html('<select name="{}"{}>{}</select>', widget["name"], attributes, options)


class PreferencesForm(TextCheckedForm, forms.Form):
    """What the user wants to hear from us and when; saved through ``user_update_preferences``."""

    time_zone = forms.ChoiceField(
        choices=time_zone_choices,
        widget=LongSelect,
        help_text="Deadlines on pages and in e-mails are shown in this zone.",
    )
    notify = forms.ChoiceField(label="E-mail me", choices=User.Notify.choices, widget=forms.RadioSelect)
    reminder_hours = forms.CharField(
        label="Reminders (hours before a deadline)",
        required=False,
        max_length=60,
        help_text=(
            f"Whole hours between 1 and {MAX_REMINDER_HOURS}, separated by commas, at most "
            f"{MAX_REMINDERS}; for example 24, 2. Leave empty for no reminders."
        ),
    )
    digest_hour = forms.TypedChoiceField(
        label="Send the daily digest at",
        coerce=int,
        choices=[(hour, f"{hour:02d}:00") for hour in range(24)],
        help_text="Your local time.",
    )
    on_vacation = forms.BooleanField(
        label="I am on vacation",
        required=False,
        help_text="While this is on we send you no turn e-mails or reminders.",
    )

    @classmethod
    def for_user(cls, user: User, data=None) -> PreferencesForm:
        return cls(
            data,
            initial={
                "time_zone": user.time_zone,
                "notify": user.notify,
                "reminder_hours": hours_text(user.reminder_hours or []),
                "digest_hour": user.digest_hour,
                "on_vacation": user.on_vacation,
            },
        )

    def clean_reminder_hours(self) -> list[int]:
        raw = self.cleaned_data["reminder_hours"]
        pieces = [piece.strip() for piece in raw.replace(";", ",").split(",")]
        hours = set()
        for piece in pieces:
            if not piece:
                continue
            if not (piece.isascii() and piece.isdigit()):
                raise forms.ValidationError(f"“{piece}” is not a whole number of hours.")
            hour = int(piece)
            if not 1 <= hour <= MAX_REMINDER_HOURS:
                raise forms.ValidationError(
                    f"{hour} is out of range: a reminder comes 1 to {MAX_REMINDER_HOURS} hours "
                    "(one week) before a deadline."
                )
            hours.add(hour)
        if len(hours) > MAX_REMINDERS:
            raise forms.ValidationError(f"At most {MAX_REMINDERS} reminders, please.")
        return sorted(hours, reverse=True)


def hours_text(hours: list[int]) -> str:
    return ", ".join(str(hour) for hour in sorted({int(h) for h in hours}, reverse=True))
