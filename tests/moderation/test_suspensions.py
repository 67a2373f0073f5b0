"""Suspensions and bans: the user cannot log in or play until the time is up, and is told why."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from games.api import tokens
from games.errors import Conflict, Forbidden, ServiceError
from moderation import services
from moderation.models import ModerationAction, Suspension
from moderation.tasks import suspensions_expire
from tests.conftest import PASSWORD
from wallsite.celery import app

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def log_in(client, user, password=PASSWORD):
    return client.post(reverse("login"), {"username": user.username, "password": password}, follow=True)


def test_a_suspended_user_cannot_log_in_and_is_told_why(client, bob, moderator):
    suspension = services.user_suspend(
        moderator=moderator,
        user_id=bob.pk,
        kind="suspension",
        duration=3 * DAY,
        reason="Abusive chat <b>x</b>",
    )
    bob.refresh_from_db()
    assert not bob.is_active
    html = log_in(client, bob).content.decode()
    until = suspension.ends_at.strftime("%d %B %Y, %H:%M")
    assert f"Your account is suspended until {until} UTC: Abusive chat &lt;b&gt;x&lt;/b&gt;" in html
    assert "_auth_user_id" not in client.session


def test_a_wrong_password_learns_nothing_about_a_suspension(client, bob, moderator):
    services.user_suspend(moderator=moderator, user_id=bob.pk, kind="ban", duration=None, reason="Cheating")
    html = log_in(client, bob, password="not-the-password").content.decode()
    assert "Cheating" not in html and "banned" not in html


def test_a_suspension_ends_a_running_session_and_the_api_token(client, started_match, bob, moderator):
    match = started_match()
    client.force_login(bob)
    key = tokens.api_token_create(user=bob).key
    services.user_suspend(moderator=moderator, user_id=bob.pk, kind="suspension", duration=DAY, reason="x")
    # Logged out: a move is sent to the log-in page, not played.
    response = client.post(reverse("match-move", args=[match.pk]), {"version": match.version, "move": "b2"})
    assert response.status_code == 302 and reverse("login") in response["Location"]
    api = client.get(f"/api/matches/{match.pk}/", headers={"authorization": f"Token {key}"})
    assert api.status_code == 401


def test_a_suspension_runs_out_by_itself(client, bob, moderator):
    with time_machine.travel("2026-11-16 09:00Z", tick=False) as clock:
        services.user_suspend(
            moderator=moderator, user_id=bob.pk, kind="suspension", duration=DAY, reason="x"
        )
        assert suspensions_expire() == 0
        clock.shift(DAY + timedelta(minutes=1))
        assert suspensions_expire() == 1
        assert suspensions_expire() == 0  # a second run does nothing more
        bob.refresh_from_db()
        assert bob.is_active
        assert Suspension.objects.get().lifted_at == timezone.now() - timedelta(minutes=1)
    assert "_auth_user_id" in log_in(client, bob).wsgi_request.session


def test_an_ended_suspension_is_lifted_when_the_user_tries_to_log_in(client, bob, moderator):
    with time_machine.travel("2026-11-16 09:00Z", tick=False) as clock:
        services.user_suspend(
            moderator=moderator, user_id=bob.pk, kind="suspension", duration=DAY, reason="x"
        )
        clock.shift(2 * DAY)
        html = log_in(client, bob).content.decode()
        assert "Your suspension is over. Log in again." in html
        assert "_auth_user_id" in log_in(client, bob).wsgi_request.session


def test_a_moderator_lifts_a_suspension_early(client, bob, moderator):
    suspension = services.user_suspend(
        moderator=moderator, user_id=bob.pk, kind="suspension", duration=7 * DAY, reason="x"
    )
    client.force_login(moderator)
    client.post(reverse("moderation-suspension-lift", args=[suspension.pk]), {"reason": "Appeal accepted"})
    bob.refresh_from_db()
    suspension.refresh_from_db()
    assert bob.is_active and suspension.lifted_by == moderator
    assert list(ModerationAction.objects.order_by("pk").values_list("kind", "reason")) == [
        ("suspend", "x"),
        ("lift", "Appeal accepted"),
    ]
    with pytest.raises(Conflict, match="no longer in force"):
        services.suspension_lift(moderator=moderator, suspension_id=suspension.pk, reason="again")


def test_two_overlapping_suspensions_keep_the_user_out_until_both_end(bob, moderator):
    short = services.user_suspend(
        moderator=moderator, user_id=bob.pk, kind="suspension", duration=DAY, reason="a"
    )
    services.user_suspend(moderator=moderator, user_id=bob.pk, kind="ban", duration=None, reason="b")
    services.suspension_lift(moderator=moderator, suspension_id=short.pk, reason="lifted")
    bob.refresh_from_db()
    assert not bob.is_active


def test_a_closed_account_stays_closed_when_a_suspension_ends(bob, moderator):
    bob.is_active = False
    bob.save()
    suspension = services.user_suspend(
        moderator=moderator, user_id=bob.pk, kind="suspension", duration=DAY, reason="x"
    )
    services.suspension_lift(moderator=moderator, suspension_id=suspension.pk, reason="y")
    bob.refresh_from_db()
    assert not bob.is_active


@pytest.mark.parametrize(
    ("kind", "duration", "reason"),
    [
        ("suspension", None, "A suspension needs a length"),
        ("suspension", timedelta(minutes=5), "from one hour to ten years"),
        ("holiday", DAY, "Choose a suspension or a ban"),
    ],
)
def test_a_suspension_that_makes_no_sense_is_refused(bob, moderator, kind, duration, reason):
    with pytest.raises(ServiceError, match=reason):
        services.user_suspend(moderator=moderator, user_id=bob.pk, kind=kind, duration=duration, reason="x")
    bob.refresh_from_db()
    assert bob.is_active


def test_moderators_do_not_suspend_themselves_or_each_other(make_user, moderator, alice):
    other = make_user("mod2")
    services.moderator_appoint(user=other)
    with pytest.raises(Forbidden, match="yourself"):
        services.user_suspend(
            moderator=moderator, user_id=moderator.pk, kind="ban", duration=None, reason="x"
        )
    with pytest.raises(Forbidden, match="Only an administrator"):
        services.user_suspend(moderator=moderator, user_id=other.pk, kind="ban", duration=None, reason="x")
    with pytest.raises(Forbidden, match="Only moderators"):
        services.user_suspend(moderator=alice, user_id=other.pk, kind="ban", duration=None, reason="x")


def test_the_user_page_suspends_with_a_form_that_explains_refusals(client, bob, moderator):
    client.force_login(moderator)
    url = reverse("moderation-user-suspend", args=[bob.username])
    response = client.post(url, {"kind": "suspension", "unit": "days", "reason": "Spam"})
    assert response.status_code == 400
    assert "Give the length, or tick" in response.content.decode()
    response = client.post(url, {"kind": "suspension", "length": 2, "unit": "days", "reason": "Spam"})
    assert response.status_code == 302
    page = client.get(reverse("moderation-user", args=[bob.username])).content.decode()
    assert 'data-testid="in-force"' in page and "Spam" in page
    bob.refresh_from_db()
    assert not bob.is_active


def test_beat_runs_the_expiry_every_minute():
    entry = app.conf.beat_schedule["moderation-suspensions"]
    assert entry == {"task": "moderation.suspensions_expire", "schedule": 60.0}
    assert "sweep" in app.conf.beat_schedule  # the settings' own entries are kept


def test_the_command_appoints_a_moderator(bob):
    out = io.StringIO()
    call_command("moderator_add", "bob", stdout=out)
    assert out.getvalue() == "bob is now a moderator.\n"
    bob.refresh_from_db()
    assert bob.is_staff and bob.groups.filter(name="Moderators").exists()
