"""A player reports a stalling opponent from the match page; a moderator works the report from the
queue, hands the seat to a computer, and the computer's move appears. Real Chromium, live server."""

from __future__ import annotations

import pytest

from games import services
from games.models import Match, Move, Seat
from moderation.models import ModerationAction, Report
from moderation.services import moderator_appoint
from tests.e2e.browsing import PASSWORD

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def log_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form[data-testid=login-form] button[type=submit]")
    page.wait_for_url(f"{base}/me/matches/")


def test_a_reported_staller_is_replaced_by_a_computer(live_server, new_page, django_user_model):
    base = live_server.url
    users = {
        name: django_user_model.objects.create_user(
            username=name, email=f"{name}@example.com", password=PASSWORD
        )
        for name in ("ann", "ben", "mia")
    }
    moderator_appoint(user=users["mia"])
    match = services.match_create(creator=users["ann"], game="wallgo", seat_count=2, name="Slow duel")
    services.seat_join(match_id=match.pk, user=users["ben"])
    match.refresh_from_db()
    (first,) = match.engine.legal_moves(match.engine_state, 0)[:1]
    services.move_play(match_id=match.pk, user=users["ann"], expected_version=match.version, move=first)
    match.refresh_from_db()
    assert match.engine.actors(match.engine_state) == {1}  # ben's move, and ben stalls
    match_url = f"{base}{match.get_absolute_url()}"

    # Ann reports Ben from the match page.
    ann = new_page()
    log_in(ann, base, "ann")
    ann.goto(match_url)
    assert "Waiting for the other players." in ann.text_content("[data-testid=match-status]")
    ann.click("[data-testid=report] summary")
    ann.select_option("#report-player", label="ben")
    ann.select_option("#report-reason", "stalling")
    ann.fill("#report-details", "No move for two weeks <and counting>")
    ann.click("form[data-testid=report-form] button[type=submit]")
    ann.wait_for_url(match_url)
    assert "your report is in the moderators' queue" in ann.text_content(".messages")
    report = Report.objects.get()
    assert (report.reporter.username, report.reported.username, report.reason) == ("ann", "ben", "stalling")

    # Mia, a moderator, finds it in her queue.
    mia = new_page()
    log_in(mia, base, "mia")
    assert mia.text_content("[data-testid=moderation-link]").split() == ["Moderation", "1"]
    mia.click("[data-testid=moderation-link]")
    row = mia.locator(f"[data-testid=report-row-{report.pk}]")
    assert "Stalling: not moving" in row.text_content()
    assert "No move for two weeks <and counting>" in row.text_content()
    row.locator("[data-testid=report-assign]").click()
    assert "It is yours." in mia.text_content(".messages")

    # From the report to the match, and the seat to a computer.
    mia.locator(f"[data-testid=report-row-{report.pk}] [data-testid=report-match]").click()
    panel = mia.locator("[data-testid=moderation-panel]")
    assert "ann about ben" in panel.text_content()
    mia.click("[data-testid=mod-hand-over] summary")
    mia.select_option("#id_hand_seat", label="2: ben")
    mia.select_option("#id_hand_bot", "random")
    mia.fill("#id_hand_reason", "ben has stopped playing")
    mia.click("[data-testid=mod-hand-over] button[type=submit]")
    mia.wait_for_load_state()
    assert "Done: A moderator handed ben's seat to Computer (random): ben has stopped playing" in (
        mia.text_content(".messages")
    )

    # The computer has moved for the seat, and it is Ann's move again.
    seat = Seat.objects.get(match=match, position=1)
    assert seat.user is None and seat.bot == "random"
    # (In Wall Go's snake placement the seat places two tokens in a row.)
    computer_moves = [m.notation for m in Move.objects.filter(match=match, seat=seat, move__isnull=False)]
    assert computer_moves
    log = mia.text_content("[data-testid=log]")
    assert "A moderator handed ben's seat to Computer (random): ben has stopped playing" in log
    assert all(notation in log for notation in computer_moves) and "Computer (random)" in log
    ann.goto(match_url)
    assert "Your move." in ann.text_content("[data-testid=match-status]")
    assert "Computer (random)" in ann.text_content("[data-testid=seats]")
    assert computer_moves[-1] in ann.text_content("[data-testid=log]")

    # The report is closed with a note, and everything is on record.
    mia.click("[data-testid=moderation-link]")
    row = mia.locator(f"[data-testid=report-row-{report.pk}]")
    row.locator("summary").click()
    row.locator("textarea[name=note]").fill("Seat handed to a computer.")
    row.locator("[data-testid=report-resolve] button[type=submit]").click()
    assert "is closed" in mia.text_content(".messages")
    assert mia.locator("[data-testid=queue-empty]").count() == 1
    report.refresh_from_db()
    assert report.status == Report.Status.RESOLVED and report.resolved_by.username == "mia"
    kinds = list(ModerationAction.objects.order_by("pk").values_list("kind", flat=True))
    assert kinds == ["report_assign", "hand_over", "report_resolve"]
    assert ModerationAction.objects.get(kind="hand_over").report == report
    assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
