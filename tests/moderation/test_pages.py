"""The moderation pages and the admin: moderators find their tools; nobody else even finds the pages."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from chat import services as chat
from games.models import Match, Seat
from moderation import permissions, services
from moderation.models import ModerationAction, Report, Suspension
from tests.conftest import play_random

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(started_match, alice, bob, moderator):
    match = started_match()
    play_random(match, moves=2)
    message = chat.message_post(match_id=match.pk, user=bob, text="hello")
    report = services.report_create(reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="stalling")
    suspension = services.user_suspend(
        moderator=moderator, user_id=bob.pk, kind="ban", duration=None, reason="x"
    )
    return {"match": match, "message": message, "report": report, "suspension": suspension}


def moderation_urls(world) -> list[tuple[str, str]]:
    match, report = world["match"].pk, world["report"].pk
    urls = [
        ("get", reverse("moderation-queue")),
        ("get", reverse("moderation-actions")),
        ("get", reverse("moderation-user", args=["bob"])),
        ("post", reverse("moderation-report-assign", args=[report])),
        ("post", reverse("moderation-report-resolve", args=[report])),
        ("post", reverse("moderation-match-secrets", args=[match])),
        ("post", reverse("moderation-message-hide", args=[world["message"].pk])),
        ("post", reverse("moderation-user-suspend", args=["alice"])),
        ("post", reverse("moderation-suspension-lift", args=[world["suspension"].pk])),
    ]
    for action in ("pause", "resume", "extend", "hand-over", "remove", "rollback", "adjudicate", "end"):
        urls.append(("post", reverse("moderation-match-action", args=[match, action])))
    return urls


@pytest.mark.parametrize("who", ["nobody", "alice"])
def test_every_moderation_url_is_a_404_for_everyone_else(client, world, alice, who):
    if who == "alice":
        client.force_login(alice)
    for method, url in moderation_urls(world):
        response = getattr(client, method)(url, {"reason": "x", "seat": 1, "bot": "random", "hours": 5})
        assert response.status_code == 404, (method, url)
    assert ModerationAction.objects.count() == 1  # the suspension made for the fixture
    match = Match.objects.get(pk=world["match"].pk)
    assert match.paused_at is None and match.status == Match.Status.ACTIVE


def test_the_match_page_shows_the_panel_to_moderators_only(client, world, alice, moderator):
    match = world["match"]
    client.force_login(alice)
    html = client.get(match.get_absolute_url()).content.decode()
    assert 'data-testid="moderation-panel"' not in html and 'data-testid="moderation-link"' not in html
    client.force_login(moderator)
    html = client.get(match.get_absolute_url() + f"?report={world['report'].pk}").content.decode()
    assert 'data-testid="moderation-panel"' in html
    assert f'name="report" value="{world["report"].pk}"' in html
    assert 'data-testid="moderation-link"' in html and 'title="Reports waiting">1<' in html
    assert f"#{world['report'].pk} Stalling: not moving: alice about" in html


def test_a_moderator_hands_a_seat_to_a_computer_from_the_panel(
    client, world, moderator, django_capture_on_commit_callbacks
):
    match, report = world["match"], world["report"]
    match.refresh_from_db()
    (actor,) = match.engine.actors(match.engine_state)
    client.force_login(moderator)
    url = reverse("moderation-match-action", args=[match.pk, "hand-over"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url, {"seat": actor, "bot": "random", "reason": "Stalling", "report": report.pk}, follow=True
        )
    html = response.content.decode()
    assert "Done: A moderator handed" in html
    seat = Seat.objects.get(match=match, position=actor)
    assert seat.bot == "random" and seat.user is None
    action = ModerationAction.objects.get(kind="hand_over")
    assert action.report == report and action.moderator == moderator


def test_a_panel_form_with_a_mistake_says_what_is_wrong(client, world, moderator):
    match = world["match"]
    client.force_login(moderator)
    url = reverse("moderation-match-action", args=[match.pk, "hand-over"])
    response = client.post(url, {"seat": 1, "bot": "random", "username": "carol", "reason": "x"}, follow=True)
    assert "Name one player or choose one computer opponent." in response.content.decode()
    response = client.post(
        reverse("moderation-match-action", args=[match.pk, "extend"]), {"seat": 9}, follow=True
    )
    html = response.content.decode()
    assert "Select a valid choice" in html and "Reason: This field is required." in html
    assert not ModerationAction.objects.filter(match=match).exists()


def test_the_hidden_information_page_is_recorded_and_never_cached(client, world, moderator):
    match = world["match"]
    client.force_login(moderator)
    response = client.post(
        reverse("moderation-match-secrets", args=[match.pk]), {"reason": "Cheating report"}
    )
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    assert 'data-testid="secret-seat-0"' in response.content.decode()
    assert ModerationAction.objects.filter(kind="view_hidden", match=match).count() == 1


def test_the_record_page_lists_actions_by_match(client, world, moderator):
    match = world["match"]
    services.match_pause(moderator=moderator, match_id=match.pk, reason="Looking <now>")
    client.force_login(moderator)
    html = client.get(reverse("moderation-actions") + f"?match={match.pk}").content.decode()
    assert "A moderator paused the match: Looking &lt;now&gt;" in html
    assert "Banned bob" not in html  # not about this match


@pytest.mark.parametrize(
    "url",
    [
        "/moderation/actions/?user=%00",
        "/moderation/?reason=%00&status=all",
        "/moderation/?reason=%EF%BF%BF",
        "/moderation/users/bob%00/",
    ],
)
def test_a_filter_or_name_holding_what_is_not_text_is_a_400_with_the_reason(client, world, moderator, url):
    """A NUL reached the database through these filters and names: a 500 on PostgreSQL."""
    client.force_login(moderator)
    answer = client.get(url)
    assert answer.status_code == 400
    assert "holds a NUL character (U+0000)" in answer.content.decode() or "U+FFFF" in answer.content.decode()


def test_the_moderators_group_holds_the_moderation_permissions(make_user):
    user = make_user("newmod")
    assert not permissions.is_moderator(user)
    services.moderator_appoint(user=user)
    # Made by a data migration (or again by the appointment, after a transactional test emptied it).
    group = Group.objects.get(name=permissions.GROUP)
    user = type(user).objects.get(pk=user.pk)  # a fresh permission cache
    assert user.is_staff and all(permissions.can(user, perm) for perm in permissions.ALL)
    held = {
        f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")
    }
    assert held == set(permissions.GROUP_PERMISSIONS)
    services.moderator_appoint(user=user, appoint=False)
    user = type(user).objects.get(pk=user.pk)
    assert not user.is_staff and not permissions.is_moderator(user)


# --- the admin ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "moderatedmatch",
        "moderatedseat",
        "report",
        "moderationaction",
        "suspension",
    ],
)
def test_the_admin_lists_load_with_their_filters_and_search(client, world, moderator, name):
    client.force_login(moderator)
    url = reverse(f"admin:moderation_{name}_changelist")
    assert client.get(url).status_code == 200
    assert client.get(url + "?q=bob").status_code == 200


def test_the_admin_chat_list_filters_hidden_messages(client, world, moderator):
    client.force_login(moderator)
    url = reverse("admin:chat_chatmessage_changelist")
    assert "hello" in client.get(url + "?hidden=no").content.decode()
    assert "hello" not in client.get(url + "?hidden=yes").content.decode()


def test_the_admin_never_shows_the_server_only_state(client, world, moderator):
    match = world["match"]
    client.force_login(moderator)
    html = client.get(reverse("admin:moderation_moderatedmatch_change", args=[match.pk])).content.decode()
    assert "engine_state" not in html and "rng_state" not in html
    assert str(match.engine_state)[:40] not in html


def test_an_admin_action_asks_for_a_reason_then_goes_through_the_service(client, world, moderator):
    match = world["match"]
    client.force_login(moderator)
    url = reverse("admin:moderation_moderatedmatch_changelist")
    form = client.post(url, {"action": "pause", "_selected_action": [match.pk]})
    assert form.status_code == 200 and 'name="reason"' in form.content.decode()
    done = client.post(
        url, {"action": "pause", "_selected_action": [match.pk], "apply": "yes", "reason": "From the admin"}
    )
    assert done.status_code == 302
    match.refresh_from_db()
    assert match.paused_at is not None
    action = ModerationAction.objects.get(kind="pause")
    assert action.reason == "From the admin" and action.moderator == moderator
    # Refused rows say why.
    again = client.post(
        url,
        {"action": "pause", "_selected_action": [match.pk], "apply": "yes", "reason": "again"},
        follow=True,
    )
    assert "paused already" in again.content.decode()


def test_admin_seat_actions_hand_over_and_adjudicate(
    client, world, moderator, django_capture_on_commit_callbacks
):
    match = world["match"]
    client.force_login(moderator)
    url = reverse("admin:moderation_moderatedseat_changelist")
    alice_seat = Seat.objects.get(match=match, position=0)
    client.post(
        url,
        {"action": "adjudicate_win", "_selected_action": [alice_seat.pk], "apply": "yes", "reason": "Agreed"},
    )
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result_text == "Adjudicated: alice wins."


def test_admin_report_actions_assign_and_resolve(client, world, moderator):
    report = world["report"]
    client.force_login(moderator)
    url = reverse("admin:moderation_report_changelist")
    client.post(url, {"action": "assign_to_me", "_selected_action": [report.pk]})
    client.post(url, {"action": "resolve", "_selected_action": [report.pk], "apply": "yes", "note": "Done"})
    report.refresh_from_db()
    assert report.status == Report.Status.RESOLVED and report.assigned_to == moderator


def test_a_suspension_added_in_the_admin_keeps_the_user_out(client, world, alice, moderator):
    client.force_login(moderator)
    response = client.post(
        reverse("admin:moderation_suspension_add"),
        {"user": alice.pk, "kind": "ban", "forever": "on", "reason": "Multiple accounts"},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert not alice.is_active
    assert Suspension.objects.filter(user=alice, ends_at__isnull=True).exists()
    assert ModerationAction.objects.filter(kind="ban", target_user=alice).exists()
