"""The Wall's chance steps run in real Celery worker processes on a real Redis, between the leaders'
turns: the dice of an attack, and at the start of Mance Rayder's turn the wandering Wildlings' drift and,
every second round, their spawn. Each runs exactly once, however often its task is delivered, and is
written in the game log.

Test setup: where a test needs a chance step to come out one way (a group spawning where nobody
acquires it, a drift that moves), the match's server-side dice are seeded beforehand
(``tests/support/thewall.py``); every move is made through the services, as the site makes it.
"""

from __future__ import annotations

import re
import time

from django.urls import reverse

from games import services, tasks
from games.models import Match, Move, Turn
from tests.support.thewall import dice_arrange, kinds, position_after

SETTLE = 1.5  # long enough for a duplicate delivery to have run, had it done anything


def thewall_match(alice, bob) -> Match:
    """A 2-player match: alice leads the Watch's side (Jon Snow, Mance Rayder), bob the Others."""
    match = services.match_create(creator=alice, game="thewall", seat_count=2)
    services.seat_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    return match


def play(match: Match, players: dict[int, object], *texts: str) -> int:
    """Make each move for the seat then to act, as the site does; returns the version after the last."""
    for text in texts:
        match.refresh_from_db()
        (seat,) = match.engine.actors(match.engine_state)
        services.move_play(match_id=match.pk, user=players[seat], expected_version=match.version, text=text)
    return version_of(match)


def version_of(match: Match) -> int:
    return Match.objects.values_list("version", flat=True).get(pk=match.pk)


def chance_steps(match: Match) -> list[Move]:
    return list(Move.objects.filter(match=match, seat__isnull=True).order_by("seq"))


def texts(move: Move) -> list[str]:
    return [event["text"] for event in move.events]


def wait_until(condition, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def whole_log(client, match: Match) -> str:
    response = client.get(reverse("match-log", args=[match.pk]))
    assert response.status_code == 200
    return response.content.decode()


def chance_results(worker) -> list[str]:
    """What each chance task the worker ran returned: the new log line's seq, or None for a no-op."""
    return re.findall(
        r"Task games\.chance_resolve\[[^\]]+\] succeeded in [\d.e-]+s: (\S+)", worker.log.read_text()
    )


def delivered_twice_more(match: Match, version: int) -> None:
    """The chance step's task again, twice, as a retry or a redelivery would bring it."""
    tasks.chance_resolve.delay(match.pk, version)
    tasks.chance_resolve.delay(match.pk, version)


def test_the_dice_of_an_attack_are_rolled_by_the_worker_between_turns_once_and_logged(
    workers, alice, bob, client
):
    match = thewall_match(alice, bob)
    players = {0: alice, 1: bob}
    # Jon Snow and the Great Other end their turns; a Wildling of Mance moves up and attacks a Wight.
    play(match, players, "end", "end")
    version = play(match, players, "0507-0506x0605")
    match.refresh_from_db()
    attack_seq = match.log_length

    # No worker runs yet: the attack is declared and the dice are owed. Nobody may move meanwhile.
    assert match.engine_state["pending"]["kind"] == "attack"
    assert match.engine.actors(match.engine_state) == frozenset()
    assert not Turn.objects.filter(match=match, closed_at__isnull=True).exists()
    assert match.work_due_at is not None
    client.force_login(alice)
    page = client.get(reverse("match-detail", args=[match.pk])).content.decode()
    assert "The dice are being rolled." in page and 'id="move-form"' not in page
    assert chance_steps(match) == []

    delivered_twice_more(match, version)  # three deliveries of the one step in all
    worker = workers.start()
    wait_until(lambda: version_of(match) == version + 1, "the worker to roll the dice")
    wait_until(lambda: len(chance_results(worker)) == 3, "the worker to take all three deliveries")
    time.sleep(SETTLE)
    assert version_of(match) == version + 1
    (step,) = chance_steps(match)
    assert step.seq == attack_seq + 1
    assert sorted(chance_results(worker)) == sorted([str(step.seq), "None", "None"])  # applied once
    assert step.events[0]["kind"] == "dice"
    rolled = re.fullmatch(
        r"Wildling 1 attacks Wight \(Wildling\) 1: "
        r"([1-6]) \+ 2 = \d+ against ([1-6]) \+ 3 = \d+: (hit|held)\.",
        step.events[0]["text"],
    )
    assert rolled, step.events
    hit = rolled[3] == "hit"
    assert int(rolled[1]) + 2 > int(rolled[2]) + 3 if hit else int(rolled[1]) + 2 <= int(rolled[2]) + 3
    assert texts(step)[1:] == (["Wight (Wildling) 1 loses 1 life point (2 left)."] if hit else [])

    # Mance Rayder's turn goes on, with the result on the board; the dice are in the log, once.
    match.refresh_from_db()
    state = match.engine_state
    assert state["pending"] is None and state["spent"] == 1 and match.work_due_at is None
    assert match.engine.actors(state) == frozenset({0})
    assert Turn.objects.filter(match=match, closed_at__isnull=True, seat__position=0).count() == 1
    wight = next(u for u in match.public_view["leaders"][3]["units"] if u["hex"] == "0605")
    assert wight["life"] == (2 if hit else 3)
    assert match.public_view["last"]["text"] == step.events[0]["text"]
    log = whole_log(client, match)
    assert log.count(step.events[0]["text"]) == 1


def test_wandering_wildlings_spawn_every_second_round_and_drift_in_the_worker_once_each(
    workers, alice, bob, client
):
    worker = workers.start()
    match = thewall_match(alice, bob)
    players = {0: alice, 1: bob}
    client.force_login(bob)
    # Round 1 passes without a chance step: no group spawns in an odd round and none is on the map.
    play(match, players, "end", "end", "end", "end", "end")
    time.sleep(SETTLE)
    assert chance_steps(match) == []
    match.refresh_from_db()
    assert (match.engine_state["round"], match.public_view["leader"]) == (2, "great")

    # Round 2: when the Great Other's turn ends, Mance Rayder's begins with the spawn.
    expected = dice_arrange(
        match,
        position_after(match, ["end"]),
        lambda events: kinds(events) == ["spawn_roll", "spawn"],  # nobody acquires the group at once
    )
    version = play(match, players, "end")
    delivered_twice_more(match, version)
    wait_until(lambda: version_of(match) == version + 1, "the worker to spawn the group")
    wait_until(lambda: len(chance_results(worker)) == 3, "the worker to take every delivery")
    time.sleep(SETTLE)
    assert version_of(match) == version + 1
    (spawn,) = chance_steps(match)
    assert texts(spawn) == [event.text for event in expected]
    assert re.fullmatch(r"Spawn roll [1-6]: spawn point \d{4}\.", texts(spawn)[0])
    where = re.fullmatch(r"Wandering Wildlings 1 appear on (\d{4}) \(5 groups left\)\.", texts(spawn)[1])[1]
    match.refresh_from_db()
    view = match.public_view
    assert (view["round"], view["leader"], view["supply"]) == (2, "mance", 5)
    assert [(u["name"], u["hex"]) for u in view["wanderers"]] == [("Wandering Wildlings 1", where)]
    assert match.engine.actors(match.engine_state) == frozenset({0})

    # Round 3: the group drifts a hex at the start of Mance's turn; an odd round brings no new group.
    expected = dice_arrange(
        match,
        position_after(match, ["end"] * 4),
        lambda events: kinds(events) == ["drift"] and "drift from" in events[0].text,
    )
    version = play(match, players, "end", "end", "end", "end")
    delivered_twice_more(match, version)
    wait_until(lambda: version_of(match) == version + 1, "the worker to drift the group")
    wait_until(lambda: len(chance_results(worker)) == 6, "the worker to take every delivery")
    time.sleep(SETTLE)
    assert version_of(match) == version + 1
    steps = chance_steps(match)
    assert len(steps) == 2
    drift = steps[1]
    assert texts(drift) == [event.text for event in expected]
    moved = re.fullmatch(
        r"Wandering Wildlings 1 roll ([1-6]) \((north|north-east|south-east|south|south-west|north-west)\) "
        rf"and drift from {where} to (\d{{4}})\.",
        texts(drift)[0],
    )
    assert moved, texts(drift)
    match.refresh_from_db()
    view = match.public_view
    assert (view["round"], view["leader"], view["supply"]) == (3, "mance", 5)
    assert [u["hex"] for u in view["wanderers"]] == [moved[3]]

    # Round 4: a drift and a second group.
    expected = dice_arrange(
        match,
        position_after(match, ["end"] * 4),
        lambda events: kinds(events) == ["drift", "spawn_roll", "spawn"],
    )
    version = play(match, players, "end", "end", "end", "end")
    delivered_twice_more(match, version)
    wait_until(lambda: version_of(match) == version + 1, "the worker's second spawn")
    wait_until(lambda: len(chance_results(worker)) == 9, "the worker to take every delivery")
    time.sleep(SETTLE)
    assert version_of(match) == version + 1
    steps = chance_steps(match)
    assert len(steps) == 3
    assert texts(steps[2]) == [event.text for event in expected]
    assert texts(steps[2])[2].startswith("Wandering Wildlings 2 appear on ")
    match.refresh_from_db()
    assert (match.public_view["round"], match.public_view["supply"]) == (4, 4)
    assert len(match.public_view["wanderers"]) == 2

    # Nine deliveries, three steps applied.
    results = chance_results(worker)
    assert sorted(r for r in results if r != "None") == sorted(str(step.seq) for step in steps)
    assert results.count("None") == 6

    # The log tells each step once.
    log = whole_log(client, match)
    assert log.count("Spawn roll") == 2
    assert log.count("Wandering Wildlings 1 appear on") == 1
    assert log.count("Wandering Wildlings 2 appear on") == 1
    assert log.count(texts(drift)[0]) == 1
