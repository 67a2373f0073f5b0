"""Game records and their verifier: a finished match replays from its revealed seed, line by line, and
any change to the record (a die, a move, a line left out, the seed) is caught at the line it touches."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from games import records, services
from games.engines import registry
from games.models import Match, Move
from games.record_views import match_record
from games.rng import rng_dump, seed_commitment
from tests.conftest import no_vacation, play_random

pytestmark = pytest.mark.django_db

HOUR = timezone.timedelta(hours=1)


def play_to_the_end(match: Match, *, seed: int = 3, limit: int = 2000) -> Match:
    """Every seat plays random legal moves and the chance steps run as the worker runs them, until the
    match ends."""
    rng = random.Random(seed)
    for _ in range(limit):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return match
        engine = match.engine
        state = match.engine_state
        if engine.chance_pending(state):
            assert services.chance_resolve(match_id=match.pk, version=match.version) is not None
            continue
        seat = match.seats.select_related("user").get(position=min(engine.actors(state)))
        move = rng.choice(engine.legal_moves(state, seat.position))
        services.move_play(match_id=match.pk, user=seat.user, expected_version=match.version, move=move)
    raise AssertionError("the match did not end")


@pytest.fixture
def finished(alice, bob) -> Match:
    """A finished match of the dice game (a shuffled deck, a die a round, sealed commits)."""
    match = services.match_create(creator=alice, game="testdice", seat_count=2)
    services.seat_join(match_id=match.pk, user=bob)
    return play_to_the_end(match)


def chance_line(record: dict) -> dict:
    return next(line for line in record["lines"] if line["kind"] == "chance" and line["chance_step"] >= 2)


def test_a_finished_match_verifies_from_its_revealed_seed(finished):
    record = match_record(finished)
    assert record["random"]["seed"] == finished.seed
    assert record["random"]["commitment"] == seed_commitment(finished.seed)
    result = records.record_verify(record)
    assert result.ok, result.problem
    steps = [line.chance_step for line in result.chance_lines]
    assert steps == list(range(1, finished.chance_steps))
    assert all(line.recomputed == line.recorded for line in result.chance_lines)


def test_a_record_survives_its_own_json(finished):
    record = records.record_load(json.dumps(match_record(finished)))
    assert records.record_verify(record).ok


def test_a_changed_die_fails_at_its_line(finished):
    record = match_record(finished)
    line = chance_line(record)
    event = next(event for event in line["events"] if event["kind"] == "roll")
    event["data"]["die"] = event["data"]["die"] % 6 + 1
    result = records.record_verify(record)
    assert not result.ok
    assert result.failed_at == f"line {line['seq']}"
    assert f"random step {line['chance_step']}" in result.problem


def test_a_changed_move_fails_at_its_line(finished):
    record = match_record(finished)
    moves = [line for line in record["lines"] if line["kind"] == "move"]
    target = moves[len(moves) // 2]
    seat = target["seat"]
    # Another card of the same seat's hand would have been legal too: the position after it differs.
    other = next(line["move"] for line in moves if line["seat"] == seat and line["move"] != target["move"])
    target["move"], target["notation"] = other, f"play {other['play']}"
    result = records.record_verify(record)
    assert not result.ok and result.failed_at == f"line {target['seq']}"


def test_a_chance_step_left_out_fails_at_the_line_after_it(finished):
    record = match_record(finished)
    line = chance_line(record)
    index = record["lines"].index(line)
    del record["lines"][index]
    result = records.record_verify(record)
    assert not result.ok
    assert result.failed_at == f"line {record['lines'][index]['seq']}"


def test_a_chance_step_drawn_from_another_step_number_fails(finished):
    record = match_record(finished)
    line = chance_line(record)
    line["chance_step"] += 1
    result = records.record_verify(record)
    assert not result.ok and result.failed_at == f"line {line['seq']}"
    assert "the next step is" in result.problem


def test_another_seed_fails_at_the_seed(finished):
    record = match_record(finished)
    seed = record["random"]["seed"]
    record["random"]["seed"] = seed[:-1] + ("0" if seed[-1] != "0" else "1")
    result = records.record_verify(record)
    assert not result.ok and result.failed_at == "seed"
    assert "commitment" in result.problem


def test_another_seed_with_its_own_commitment_fails_at_the_first_line_it_changes(finished):
    record = match_record(finished)
    forged = "ab" * 32
    record["random"] = {"stream": "hmac-sha256", "seed": forged, "commitment": seed_commitment(forged)}
    result = records.record_verify(record)
    assert not result.ok and result.failed_at.startswith("line ")


def test_a_match_played_on_after_a_resignation_verifies(alice, bob, carol):
    match = services.match_create(creator=alice, game="testdice", seat_count=3)
    services.seat_join(match_id=match.pk, user=bob)
    services.seat_join(match_id=match.pk, user=carol)
    match.refresh_from_db()
    while match.engine.chance_pending(match.engine_state):
        services.chance_resolve(match_id=match.pk, version=match.version)
        match.refresh_from_db()
    services.match_resign(match_id=match.pk, user=carol)
    match = play_to_the_end(match)
    record = match_record(match)
    assert {"out", "chance", "move"} <= {line["kind"] for line in record["lines"]}
    result = records.record_verify(record)
    assert result.ok, result.problem


def test_a_turn_skipped_for_time_with_a_random_default_move_verifies(started_match, alice, bob):
    no_vacation(alice, bob)
    match = started_match(move_time_limit=HOUR * 24, timeout_policy="skip")
    turn = match.turns.get(closed_at__isnull=True)
    # Wall Go's placement cannot pass: the timed-out seat's token goes on a random square.
    assert services.turn_expire(turn_id=turn.pk, now=turn.deadline + HOUR) == "skip"
    skipped = Move.objects.get(match=match, seq=1)
    assert skipped.chance_step == 1
    match = play_random(match, moves=3)
    services.match_resign(match_id=match.pk, user=bob)
    match.refresh_from_db()
    record = match_record(match)
    assert [line["kind"] for line in record["lines"]][:1] == ["skip"]
    assert record["lines"][-1]["kind"] == "out"
    result = records.record_verify(record)
    assert result.ok, result.problem
    skipped_line = record["lines"][0]
    skipped_line["events"][1]["text"] = skipped_line["events"][1]["text"].replace("placed on", "placed near")
    assert records.record_verify(record).failed_at == "line 1"


@pytest.mark.parametrize("slug", ["wallgo", "stairways", "thewall", "wildlings", "greatwall"])
def test_finished_matches_of_every_game_verify(slug, make_user):
    seats = max(registry.get_engine(slug).min_players, 2)
    users = [make_user(f"{slug}-{k}") for k in range(seats)]
    match = services.match_create(creator=users[0], game=slug, seat_count=seats)
    for user in users[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match = play_to_the_end(match, limit=5000)
    assert match.status == Match.Status.FINISHED
    result = records.record_verify(match_record(match))
    assert result.ok, result.problem


def test_an_old_match_without_a_seed_is_not_verifiable(client, finished):
    Match.objects.filter(pk=finished.pk).update(
        seed="", seed_commitment="", rng_state=rng_dump(random.Random(1))
    )
    finished.refresh_from_db()
    result = records.record_verify(match_record(finished))
    assert not result.ok and not result.verifiable and result.failed_at == "seed"
    page = client.get(reverse("match-verify", args=[finished.pk])).content.decode()
    assert 'data-testid="not-verifiable"' in page and "cannot be verified" in page


def test_the_verifier_refuses_what_is_not_a_record():
    with pytest.raises(records.RecordInvalid, match="not JSON"):
        records.record_load("{")
    with pytest.raises(records.RecordInvalid, match="format"):
        records.record_load('{"format": "chess"}')
    result = records.record_verify(
        {"format": records.FORMAT, "version": 1, "match": {}, "random": {}, "lines": []}
    )
    assert not result.ok and result.failed_at == "record"


def test_the_verifier_turns_a_broken_line_into_a_problem_not_a_crash(finished):
    record = match_record(finished)
    move_line = next(line for line in record["lines"] if line["kind"] == "move")
    move_line["move"] = {"play": "seven"}
    result = records.record_verify(record)
    assert not result.ok and result.failed_at == f"line {move_line['seq']}"


def test_the_record_is_the_log_and_nothing_of_the_server_s_state(finished):
    record = match_record(finished)
    text = json.dumps(record)
    assert "state_after" not in text and "engine_state" not in text and "rng_state" not in text
    assert len(record["lines"]) == Move.objects.filter(match=finished).count()
    assert record["match"]["game"] == "testdice" and record["seats"][0]["player"] == "alice"


# --- the command ---------------------------------------------------------------------------------


def test_the_command_verifies_a_match_and_a_downloaded_record(finished, tmp_path):
    out = io.StringIO()
    call_command("match_verify", str(finished.pk), stdout=out)
    assert "Verified:" in out.getvalue() and finished.seed in out.getvalue()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(match_record(finished)))
    out = io.StringIO()
    call_command("match_verify", "--record", str(path), stdout=out)
    assert "Verified:" in out.getvalue()


def test_the_command_names_the_line_of_a_tampered_record_and_fails(finished, tmp_path):
    record = match_record(finished)
    line = chance_line(record)
    line["events"][-1]["text"] += " (changed)"
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    err = io.StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("match_verify", "--record", str(path), stdout=io.StringIO(), stderr=err)
    assert exit_info.value.code == 1
    assert f"line {line['seq']}" in err.getvalue()


def test_the_command_refuses_a_match_in_play(started_match):
    match = started_match()
    with pytest.raises(CommandError, match="has not ended"):
        call_command("match_verify", str(match.pk))


# --- the pages -----------------------------------------------------------------------------------


def test_the_verify_page_shows_each_step_drawn_again_beside_the_log(client, finished):
    page = client.get(reverse("match-verify", args=[finished.pk]))
    assert page.status_code == 200
    html = page.content.decode().replace("<wbr>", "")
    assert finished.seed in html and finished.seed_commitment in html
    assert 'data-ok="true"' in html and 'data-ok="false"' not in html
    assert html.count('data-testid="chance-row"') == finished.chance_steps - 1


def test_while_the_match_runs_the_verify_page_shows_the_commitment_and_no_seed(client, alice, bob):
    match = services.match_create(creator=alice, game="testdice", seat_count=2)
    services.seat_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    html = client.get(reverse("match-verify", args=[match.pk])).content.decode().replace("<wbr>", "")
    assert match.seed_commitment in html and match.seed not in html
    download = client.get(reverse("match-record", args=[match.pk]))
    assert download.status_code == 409 and match.seed.encode() not in download.content


def test_the_record_downloads_as_a_json_file(client, finished):
    response = client.get(reverse("match-record", args=[finished.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="wallsite-match-{finished.pk}.json"'
    assert records.record_verify(json.loads(response.content)).ok


def test_an_unknown_match_has_no_verify_page(client):
    assert client.get(reverse("match-verify", args=[999999])).status_code == 404
    assert client.get(reverse("match-record", args=[999999])).status_code == 404


def test_the_import_page_verifies_and_replays_a_record(client, finished):
    text = json.dumps(match_record(finished))
    page = client.post(reverse("record-import"), {"text": text})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="verdict" data-ok="true"' in html and "<svg" in html
    first = client.post(reverse("record-import"), {"text": text, "at": "0"}).content.decode()
    assert "The opening position" in first and "<svg" in first


def test_the_import_page_names_the_line_of_a_tampered_record(client, finished):
    record = match_record(finished)
    line = chance_line(record)
    line["events"][-1]["text"] += " (changed)"
    html = client.post(reverse("record-import"), {"text": json.dumps(record)}).content.decode()
    assert 'data-ok="false"' in html and f"line {line['seq']}" in html


@pytest.mark.parametrize(
    ("body", "message"),
    [("", "Choose a record file"), ("not json", "This is not JSON"), ('{"format": 1}', "not a match record")],
)
def test_the_import_page_answers_bad_input_with_a_reason(client, body, message):
    page = client.post(reverse("record-import"), {"text": body})
    assert page.status_code == 200 and message in page.content.decode()


# --- rules versions ---------------------------------------------------------------------------------


def reworded(record: dict) -> dict:
    """The record with one drawn line's last event worded otherwise, as a change of rules may word it."""
    line = chance_line(record)
    line["events"][-1]["text"] += " (worded otherwise)"
    return line


def test_a_match_keeps_the_rules_version_it_was_dealt_under(client, alice, finished):
    assert finished.rules_version == finished.engine.rules_version
    assert match_record(finished)["match"]["rules_version"] == finished.rules_version
    client.force_login(alice)
    api = client.get(reverse("api-match", args=[finished.pk])).json()
    assert api["rules_version"] == finished.rules_version
    waiting = services.match_create(creator=alice, game="testdice", seat_count=2)
    assert waiting.rules_version is None  # dealt, and so versioned, when its last seat is taken


def test_after_a_change_of_rules_a_replay_that_differs_says_so_and_proves_nothing(finished, monkeypatch):
    monkeypatch.setattr(type(finished.engine), "rules_version", finished.rules_version + 1)
    record = match_record(finished)
    assert records.record_verify(record).ok  # a change that this match never met leaves it verified
    line = reworded(record)
    result = records.record_verify(record)
    assert not result.ok and result.rules_changed and result.failed_at == f"line {line['seq']}"
    assert f"version {finished.rules_version} of Dice" in result.problem
    assert f"today's rules (version {finished.rules_version + 1})" in result.problem
    assert "proves nothing either way" in result.problem


def test_under_the_rules_it_was_played_under_a_record_that_differs_is_not_excused(finished):
    record = match_record(finished)
    reworded(record)
    result = records.record_verify(record)
    assert not result.ok and not result.rules_changed and "other rules" not in result.problem


@pytest.mark.parametrize("older", ["null", "absent"])
def test_a_match_from_before_rules_versions_that_replays_otherwise_says_so(finished, older):
    record = match_record(finished)
    if older == "null":
        record["match"]["rules_version"] = None
    else:
        del record["match"]["rules_version"]  # a record downloaded before the field was written
    assert records.record_verify(record).ok
    reworded(record)
    result = records.record_verify(records.record_load(json.dumps(record)))
    assert not result.ok and result.rules_changed
    assert "before the site numbered their versions" in result.problem


@pytest.mark.parametrize("value", ["1", 0, -2, 1.5, True, [1]])
def test_a_record_s_rules_version_is_a_whole_number_from_1_or_null(finished, value):
    record = match_record(finished)
    record["match"]["rules_version"] = value
    with pytest.raises(records.RecordInvalid, match="rules_version"):
        records.record_load(json.dumps(record))


def test_the_pages_and_the_command_tell_a_change_of_rules_from_a_record_that_differs(client, finished):
    # The log as an earlier edition of the rules wrote it: one drawn line worded otherwise.
    line = chance_line(match_record(finished))
    move = Move.objects.get(match=finished, seq=line["seq"])
    move.events[-1]["text"] += " (worded otherwise)"
    move.save(update_fields=["events"])
    address = reverse("match-verify", args=[finished.pk])
    html = client.get(address).content.decode()
    assert 'data-ok="false"' in html and "Does not verify" in html and "other rules" not in html

    Match.objects.filter(pk=finished.pk).update(rules_version=None)
    html = client.get(address).content.decode()
    assert 'data-ok="rules-changed"' in html and "Played under other rules" in html
    assert 'data-ok="false"' in html  # the line itself is still marked as differing in the table
    record = client.get(reverse("match-record", args=[finished.pk])).content.decode()
    imported = client.post(reverse("record-import"), {"text": record}).content.decode()
    assert 'data-ok="rules-changed"' in imported
    err = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("match_verify", str(finished.pk), stdout=io.StringIO(), stderr=err)
    assert err.getvalue().startswith("Played under other rules:")
