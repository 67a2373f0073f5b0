from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core import signing
from django.test.html import parse_html
from django.urls import reverse

from accounts import services
from accounts.models import time_zone_choices
from accounts.unsubscribe import unsubscribe_token, unsubscribe_url, unsubscribe_user
from games.errors import ServiceError

pytestmark = pytest.mark.django_db

GOOD = {
    "time_zone": "Europe/Berlin",
    "notify": "digest",
    "reminder_hours": "2, 48,24",
    "digest_hour": "7",
    "on_vacation": "on",
}


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


# --- the settings page ------------------------------------------------------------------------------


def test_the_settings_page_needs_a_login(client):
    response = client.get(reverse("account-settings"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_the_settings_page_shows_the_current_choices(as_alice, alice):
    page = as_alice.get(reverse("account-settings")).content.decode()
    assert 'value="24, 2"' in page
    assert "Vacation days left this year: 21" in page
    assert alice.calendar_token in page
    assert re.search(r'value="immediate"[^>]*checked', page)


def test_the_header_and_the_own_profile_link_to_the_settings(as_alice, alice, client):
    url = reverse("account-settings")
    assert f'href="{url}"' in as_alice.get(reverse("lobby")).content.decode()
    assert f'href="{url}"' in as_alice.get(alice.get_absolute_url()).content.decode()


def test_saving_the_settings(as_alice, alice):
    response = as_alice.post(reverse("account-settings"), GOOD, follow=True)
    assert response.status_code == 200
    assert "Your settings are saved." in response.content.decode()
    alice.refresh_from_db()
    assert alice.time_zone == "Europe/Berlin"
    assert alice.notify == "digest"
    assert alice.reminder_hours == [48, 24, 2]
    assert alice.digest_hour == 7
    assert alice.on_vacation is True
    assert 'value="48, 24, 2"' in response.content.decode()


def test_an_empty_reminder_field_means_no_reminders(as_alice, alice):
    as_alice.post(reverse("account-settings"), {**GOOD, "reminder_hours": " "})
    alice.refresh_from_db()
    assert alice.reminder_hours == []


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("reminder_hours", "24, soon", "“soon” is not a whole number of hours."),
        ("reminder_hours", "0", "0 is out of range"),
        ("reminder_hours", "169", "169 is out of range"),
        ("reminder_hours", "-3", "“-3” is not a whole number"),
        ("reminder_hours", "1, 2, 3, 4, 5, 6", "At most 5 reminders"),
        ("reminder_hours", "2.5", "“2.5” is not a whole number"),
        ("time_zone", "Mars/Olympus_Mons", "Select a valid choice."),
        ("notify", "carrier-pigeon", "Select a valid choice."),
        ("digest_hour", "24", "Select a valid choice."),
    ],
)
def test_bad_settings_are_refused_with_a_reason_and_nothing_changes(as_alice, alice, field, value, reason):
    response = as_alice.post(reverse("account-settings"), {**GOOD, field: value})
    assert response.status_code == 400
    assert reason in response.content.decode()
    alice.refresh_from_db()
    assert (alice.time_zone, alice.notify, alice.reminder_hours, alice.on_vacation) == (
        "UTC",
        "immediate",
        [24, 2],
        False,
    )


def test_the_service_guards_the_same_rules(alice):
    with pytest.raises(ServiceError, match="time zone"):
        services.user_update_preferences(
            user=alice,
            time_zone="Nowhere/Land",
            notify="digest",
            reminder_hours=[2],
            digest_hour=8,
            on_vacation=False,
        )
    with pytest.raises(ServiceError, match="1 to 168"):
        services.user_update_preferences(
            user=alice,
            time_zone="UTC",
            notify="digest",
            reminder_hours=[500],
            digest_hour=8,
            on_vacation=False,
        )
    alice.refresh_from_db()
    assert alice.notify == "immediate"


# --- unsubscribe ------------------------------------------------------------------------------------


def test_looking_at_the_unsubscribe_link_changes_nothing(client, alice):
    response = client.get(reverse("unsubscribe", args=[unsubscribe_token(user=alice)]))
    assert response.status_code == 200
    assert "Stop e-mails from Wallsite for alice?" in response.content.decode()
    alice.refresh_from_db()
    assert alice.notify == "immediate"


def test_one_post_turns_the_emails_off_without_a_login_or_csrf_token(alice):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    url = unsubscribe_url(user=alice).removeprefix(settings.SITE_URL)
    assert url.startswith("/accounts/unsubscribe/")
    # What a mail client sends for List-Unsubscribe-Post (RFC 8058).
    response = client.post(url, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert "Done; Wallsite will send no more e-mails" in response.content.decode()
    assert "back on in your" in response.content.decode()
    alice.refresh_from_db()
    assert alice.notify == "off"


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_tampered_unsubscribe_link_is_refused_cleanly(client, alice, bob, method):
    token = unsubscribe_token(user=alice)
    forged = signing.dumps(bob.pk, salt="some.other.purpose")
    for bad in (token[:-2] + ("AA" if not token.endswith("AA") else "BB"), forged, "nonsense"):
        response = getattr(client, method)(reverse("unsubscribe", args=[bad]))
        assert response.status_code == 400
        assert "This unsubscribe link is not valid" in response.content.decode()
    for user in (alice, bob):
        user.refresh_from_db()
        assert user.notify == "immediate"


def test_each_token_names_its_own_user(alice, bob):
    assert unsubscribe_user(token=unsubscribe_token(user=alice)) == alice
    assert unsubscribe_user(token=unsubscribe_token(user=bob)) == bob
    assert unsubscribe_token(user=alice) != unsubscribe_token(user=bob)


@pytest.mark.parametrize("value", ["Europe/Berlin", "UTC", None, "Not/A_Zone"])
def test_the_time_zone_list_is_written_as_django_would_write_it(value):
    from django import forms as django_forms

    from accounts.forms import LongSelect

    choices = [*time_zone_choices(), ("Odd<&>\"'", "Odd <&> \"'")]
    attrs = {"id": "id_time_zone", "aria-describedby": "id_time_zone_helptext", "required": True}
    ours = LongSelect(choices=choices).render("time_zone", value, attrs=attrs)
    django = django_forms.Select(choices=choices).render("time_zone", value, attrs=attrs)
    # The same elements, attributes, text and selection (attribute order aside).
    assert parse_html(ours) == parse_html(django)


def test_the_settings_page_offers_every_time_zone_with_the_users_own_selected(as_alice, alice):
    alice.time_zone = "America/Sao_Paulo"
    alice.save()
    html = as_alice.get(reverse("account-settings")).content.decode()
    select = html.split('name="time_zone"', 1)[1].split("</select>")[0]
    offered = re.findall(r'<option value="([^"]+)"', select)
    assert offered == [name for name, _ in time_zone_choices()]
    assert '<option value="America/Sao_Paulo" selected>' in html
