"""Provable dice and game records in a real browser: the commitment while The Wall is played, the seed
and every die drawn again once it has ended, the record downloaded, imported, replayed and verified, a
record with one die changed refused at that line, and the same record of a match played under other
rules told as such. Real Chromium, live server."""

from __future__ import annotations

import json

import pytest

from games import records, services
from games.models import Match
from tests.e2e.browsing import PASSWORD
from tests.games.test_records import play_to_the_end

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def one_die_changed(record: dict) -> int:
    """Change one number a chance step drew (in the record's copy of its events); the line's seq."""
    for line in record["lines"]:
        if line["kind"] != "chance":
            continue
        for event in line["events"]:
            for key, value in event["data"].items():
                if type(value) is int:
                    event["data"][key] = value + 1
                    return line["seq"]
    raise AssertionError("no chance step drew a number")


def test_the_dice_of_a_finished_match_are_verified_downloaded_and_replayed(
    live_server, new_page, django_user_model, tmp_path
):
    base = live_server.url
    ann, ben = (
        django_user_model.objects.create_user(username=name, email=f"{name}@example.com", password=PASSWORD)
        for name in ("ann", "ben")
    )
    match = services.match_create(creator=ann, game="thewall", seat_count=2, name="Dice at the Wall")
    services.seat_join(match_id=match.pk, user=ben)
    match.refresh_from_db()
    verify_url = f"{base}/matches/{match.pk}/verify/"

    # While it is played: the commitment, and no seed anywhere on the page.
    page = new_page()
    page.goto(verify_url)
    assert page.text_content("[data-testid=commitment]") == match.seed_commitment
    assert page.is_visible("[data-testid=seed-secret]")
    assert page.locator("[data-testid=seed]").count() == 0
    assert match.seed not in page.content().replace("<wbr>", "")

    # Once it has ended: the seed, and every random step drawn again beside the log.
    match = play_to_the_end(match, limit=3000)
    assert match.status == Match.Status.FINISHED
    page.goto(verify_url)
    assert page.text_content("[data-testid=seed]") == match.seed
    assert page.get_attribute("[data-testid=verdict]", "data-ok") == "true"
    rows = page.locator("[data-testid=chance-row]")
    assert rows.count() == match.chance_steps - 1 > 0
    assert set(rows.evaluate_all("rows => rows.map(r => r.dataset.ok)")) == {"true"}

    # The record, as a file.
    with page.expect_download() as download:
        page.click("[data-testid=download-record]")
    path = tmp_path / "record.json"
    download.value.save_as(path)
    record = json.loads(path.read_text())
    assert record["random"]["seed"] == match.seed and records.record_verify(record).ok

    # Imported on a page of its own: verified, and replayed from the opening position.
    page.goto(f"{base}/records/import/")
    page.set_input_files("#id_file", str(path))
    page.click("[data-testid=record-submit]")
    assert page.get_attribute("[data-testid=verdict]", "data-ok") == "true"
    assert "Dice at the Wall" in page.text_content("h2")
    assert page.is_visible("[data-testid=replay-board] svg")
    page.click("[data-testid=replay-first]")
    assert page.text_content("[data-testid=replay-at]") == "The opening position"
    page.click("[data-testid=replay-next]")
    first = record["lines"][0]
    assert page.text_content("[data-testid=replay-at]").startswith(f"After line {first['seq']}")
    assert first["player"] in page.text_content("[data-testid=replay-line]")
    assert page.is_visible("[data-testid=replay-board] svg")

    # One die changed: the record no longer verifies, and the page names the line.
    seq = one_die_changed(record)
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(record))
    page.goto(f"{base}/records/import/")
    page.set_input_files("#id_file", str(tampered))
    page.click("[data-testid=record-submit]")
    assert page.get_attribute("[data-testid=verdict]", "data-ok") == "false"
    assert f"line {seq}" in page.text_content("[data-testid=verdict]")
    assert page.locator("[data-testid=chance-row][data-ok=false]").count() == 1

    # The same record from a match played before the rules were numbered: told as other rules.
    record["match"]["rules_version"] = None
    tampered.write_text(json.dumps(record))
    page.goto(f"{base}/records/import/")
    page.set_input_files("#id_file", str(tampered))
    page.click("[data-testid=record-submit]")
    assert page.get_attribute("[data-testid=verdict]", "data-ok") == "rules-changed"
    verdict = page.text_content("[data-testid=verdict]")
    assert verdict.startswith("Played under other rules") and f"line {seq}" in verdict

    # Not a record at all: a reason, not an error page.
    page.goto(f"{base}/records/import/")
    page.fill("#id_text", "{not json")
    page.click("[data-testid=record-submit]")
    assert "This is not JSON" in page.text_content("[data-testid=record-errors]")
