"""Players report players into a queue; moderators take reports and close them with a note."""

from __future__ import annotations

import pytest
from django.urls import reverse

from chat import services as chat
from games.errors import Conflict, Forbidden, NotFound, ServiceError
from moderation import services
from moderation.models import ModerationAction, Report

pytestmark = pytest.mark.django_db


def test_a_player_reports_a_stalling_opponent_from_the_match_page(client, started_match, alice, bob):
    match = started_match()
    client.force_login(alice)
    html = client.get(match.get_absolute_url()).content.decode()
    assert 'data-testid="report-form"' in html and f'<option value="{bob.pk}">bob</option>' in html
    assert f'<option value="{alice.pk}">' not in html  # nobody reports themselves
    response = client.post(
        reverse("report-create"),
        {"match": match.pk, "reported": bob.pk, "reason": "stalling", "details": "No move for a week"},
    )
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.match, report.reason) == (alice, bob, match, "stalling")
    assert report.status == Report.Status.OPEN and report.details == "No move for a week"
    assert "your report is in the moderators" in client.get(match.get_absolute_url()).content.decode()


def test_a_chat_message_is_reported_with_the_message_attached(client, started_match, alice, bob):
    match = started_match()
    message = chat.message_post(match_id=match.pk, user=bob, text="<i>rude</i>")
    client.force_login(alice)
    form = client.get(reverse("report-create") + f"?message={message.pk}").content.decode()
    assert "&lt;i&gt;rude&lt;/i&gt;" in form
    client.post(reverse("report-create"), {"message": message.pk, "reported": bob.pk, "reason": "abuse"})
    report = Report.objects.get()
    assert (report.message, report.reported, report.match) == (message, bob, match)


def test_a_message_the_reporter_cannot_read_cannot_be_reported(client, started_match, bob, carol):
    match = started_match()
    message = chat.message_post(match_id=match.pk, user=bob, text="private")
    with pytest.raises(NotFound):
        services.report_create(reporter=carol, message_id=message.pk, reason="abuse")
    client.force_login(carol)
    assert client.get(reverse("report-create") + f"?message={message.pk}").status_code == 404


@pytest.mark.parametrize(
    ("who", "reason", "match_given", "expected"),
    [
        ("alice", "stalling", True, "You cannot report yourself."),
        ("carol", "stalling", True, "carol is not playing in this match."),
        ("bob", "stalling", False, "Stalling is reported from the match"),
        ("bob", "gossip", True, "Choose what the report is about."),
    ],
)
def test_a_report_that_makes_no_sense_is_refused(
    started_match, alice, bob, carol, who, reason, match_given, expected
):
    match = started_match()
    target = {"alice": alice, "bob": bob, "carol": carol}[who]
    with pytest.raises(ServiceError, match=expected):
        services.report_create(
            reporter=alice, reported_id=target.pk, match_id=match.pk if match_given else None, reason=reason
        )
    assert not Report.objects.exists()


def test_the_same_report_twice_is_refused_until_the_first_is_closed(started_match, alice, bob, moderator):
    match = started_match()
    first = services.report_create(reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="stalling")
    with pytest.raises(Conflict, match="already"):
        services.report_create(reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="stalling")
    services.report_resolve(moderator=moderator, report_id=first.pk, note="Warned bob")
    services.report_create(reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="stalling")
    assert Report.objects.count() == 2


def test_a_player_can_report_only_so_often(started_match, alice, bob, monkeypatch):
    match = started_match()
    monkeypatch.setattr(services, "REPORTS_PER_DAY", 2)
    for reason in ("stalling", "abuse"):
        services.report_create(reporter=alice, reported_id=bob.pk, match_id=match.pk, reason=reason)
    with pytest.raises(services.RateLimited, match="At most 2 reports a day"):
        services.report_create(reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="cheating")


def test_the_report_form_shows_why_it_refuses(client, started_match, alice, bob):
    match = started_match()
    services.report_create(reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="stalling")
    client.force_login(alice)
    response = client.post(
        reverse("report-create"), {"match": match.pk, "reported": bob.pk, "reason": "stalling"}
    )
    assert response.status_code == 400
    assert "You have reported this already" in response.content.decode()


def test_moderators_work_through_the_queue(client, started_match, alice, bob, carol, moderator):
    match = started_match()
    report = services.report_create(
        reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="stalling", details="<b>slow</b>"
    )
    client.force_login(moderator)
    queue = client.get(reverse("moderation-queue")).content.decode()
    assert f'data-testid="report-row-{report.pk}"' in queue and "&lt;b&gt;slow&lt;/b&gt;" in queue
    assert f"{match.get_absolute_url()}?report={report.pk}#moderation" in queue
    client.post(reverse("moderation-report-assign", args=[report.pk]))
    report.refresh_from_db()
    assert report.status == Report.Status.ASSIGNED and report.assigned_to == moderator
    response = client.post(
        reverse("moderation-report-resolve", args=[report.pk]),
        {"note": "", "outcome": "resolve"},
        follow=True,
    )
    assert "This field is required." in response.content.decode()
    client.post(
        reverse("moderation-report-resolve", args=[report.pk]),
        {"note": "Handed the seat to a computer", "outcome": "resolve"},
    )
    report.refresh_from_db()
    assert report.status == Report.Status.RESOLVED and report.resolution == "Handed the seat to a computer"
    assert report.resolved_by == moderator and report.resolved_at is not None
    kinds = list(ModerationAction.objects.order_by("pk").values_list("kind", "report_id", "note"))
    assert kinds == [
        ("report_assign", report.pk, ""),
        ("report_resolve", report.pk, "Handed the seat to a computer"),
    ]
    assert f"report-row-{report.pk}" not in client.get(reverse("moderation-queue")).content.decode()
    closed = client.get(reverse("moderation-queue") + "?status=closed").content.decode()
    assert f"report-row-{report.pk}" in closed
    with pytest.raises(Conflict, match="resolved already"):
        services.report_resolve(moderator=moderator, report_id=report.pk, note="again")


def test_the_queue_filters_by_reason_and_by_who_handles_it(client, started_match, alice, bob, moderator):
    match = started_match()
    stalling = services.report_create(
        reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="stalling"
    )
    abuse = services.report_create(reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="abuse")
    services.report_assign(moderator=moderator, report_id=abuse.pk)
    client.force_login(moderator)
    html = client.get(reverse("moderation-queue") + "?reason=stalling").content.decode()
    assert f"report-row-{stalling.pk}" in html and f"report-row-{abuse.pk}" not in html
    html = client.get(reverse("moderation-queue") + "?mine=1").content.decode()
    assert f"report-row-{stalling.pk}" not in html and f"report-row-{abuse.pk}" in html


def test_a_player_cannot_work_the_queue(started_match, alice, bob):
    match = started_match()
    report = services.report_create(reporter=alice, reported_id=bob.pk, match_id=match.pk, reason="stalling")
    with pytest.raises(Forbidden):
        services.report_resolve(moderator=alice, report_id=report.pk, note="done")
