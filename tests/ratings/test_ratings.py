from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import TestCase
from django.utils import timezone

from games import services, signals
from games.models import Match, Seat, Turn
from ratings import services as rating_services
from ratings import skill, tasks
from ratings.models import RatedMatch, Rating, RatingChange
from tests.conftest import no_vacation
from tests.ratings.conftest import play_scores

pytestmark = pytest.mark.django_db


def rating(user, game="testscores") -> Rating:
    return Rating.objects.get(user=user, game=game)


def snapshot(game="testscores") -> dict[int, tuple[float, float, int]]:
    return {
        r.user_id: (round(r.mu, 9), round(r.sigma, 9), r.matches) for r in Rating.objects.filter(game=game)
    }


def committed():
    """Run what the code under test queues for after its commit, as the site's worker would."""
    return TestCase.captureOnCommitCallbacks(execute=True)


def test_a_finished_match_moves_the_winner_up_and_the_loser_down(alice, bob, score_match):
    match = play_scores(score_match(alice, bob), [7, 3])
    assert match.status == Match.Status.FINISHED
    start = skill.initial()
    assert rating(alice).mu > start.mu > rating(bob).mu
    assert rating(alice).sigma < start.sigma and rating(alice).matches == 1
    assert rating(alice).ordinal == pytest.approx(rating(alice).mu - 3 * rating(alice).sigma)
    change = RatingChange.objects.get(match=match, user=alice)
    assert (change.rank, change.mu_before, change.mu_after) == (1, start.mu, rating(alice).mu)


def test_a_match_is_counted_once_however_often_its_end_is_announced(alice, bob, score_match):
    match = play_scores(score_match(alice, bob), [7, 3])
    before = snapshot()
    with committed(), transaction.atomic():
        signals.match_finished.send(sender=Match, match=match)
        signals.match_finished.send(sender=Match, match=match)
    assert tasks.match_rate(match.pk) is False  # a task delivered again
    assert rating_services.match_rate(match=match) is None
    assert snapshot() == before
    assert RatingChange.objects.filter(match=match).count() == 2
    assert RatedMatch.objects.filter(match=match).count() == 1


def test_a_draw_moves_equal_players_nowhere(alice, bob, score_match):
    play_scores(score_match(alice, bob), [5, 5])
    assert rating(alice).mu == pytest.approx(rating(bob).mu)
    assert rating(alice).mu == pytest.approx(skill.initial().mu)


def test_four_players_are_rated_by_their_places(alice, bob, carol, make_user, score_match):
    dave = make_user("dave")
    play_scores(score_match(alice, bob, carol, dave), [2, 9, 5, 0])
    mus = [rating(user).mu for user in (bob, carol, alice, dave)]
    assert mus == sorted(mus, reverse=True)
    assert len(set(mus)) == 4


def test_resigning_counts_as_a_loss(alice, bob, score_match):
    match = score_match(alice, bob)
    with committed():
        services.match_resign(match_id=match.pk, user=alice)
    assert rating(bob).mu > rating(alice).mu


def test_running_out_of_time_counts_as_a_loss(alice, bob, score_match):
    match = score_match(alice, bob, move_time_limit=timedelta(days=1), timeout_policy=Match.Timeout.FORFEIT)
    no_vacation(alice)
    turn = Turn.objects.get(match=match, closed_at__isnull=True)
    assert turn.seat.user == alice
    with committed():
        services.turn_expire(turn_id=turn.pk, now=timezone.now() + timedelta(days=2))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert rating(bob).mu > skill.initial().mu > rating(alice).mu


def test_letting_the_clock_run_in_a_free_for_all_still_loses_to_everyone(alice, bob, carol, score_match):
    match = score_match(alice, bob, carol, move_time_limit=timedelta(days=1), timeout_policy="forfeit")
    no_vacation(alice)
    turn = Turn.objects.get(match=match, closed_at__isnull=True)
    services.turn_expire(turn_id=turn.pk, now=timezone.now() + timedelta(days=2))
    play_scores(match, [0, 0, 0])  # bob and carol draw; alice is out
    assert Seat.objects.get(match=match, user=alice).status == Seat.Status.FORFEITED
    assert rating(bob).mu == pytest.approx(rating(carol).mu)
    assert rating(alice).mu < rating(bob).mu


def test_partners_in_a_team_game_win_and_lose_together(alice, bob, carol, make_user, score_match):
    dave = make_user("dave")
    # Seats 0 and 2 (alice, carol) against 1 and 3 (bob, dave); alice scores nothing but her side wins.
    match = play_scores(score_match(alice, bob, carol, dave, game="testteams"), [0, 3, 9, 3])
    rated = RatedMatch.objects.get(match=match)
    assert rated.teams == [
        {"users": sorted([alice.pk, carol.pk]), "rank": 1},
        {"users": sorted([bob.pk, dave.pk]), "rank": 3},
    ]
    game = "testteams"
    assert rating(alice, game).mu == pytest.approx(rating(carol, game).mu)
    assert rating(bob, game).mu == pytest.approx(rating(dave, game).mu)
    assert rating(alice, game).mu > rating(bob, game).mu


def test_a_partner_who_resigns_loses_even_when_the_team_wins(alice, bob, carol, make_user, score_match):
    dave = make_user("dave")
    match = score_match(alice, bob, carol, dave, game="testteams")
    services.match_resign(match_id=match.pk, user=alice)
    play_scores(match, [0, 1, 9, 1])
    rated = RatedMatch.objects.get(match=match)
    assert [team["users"] for team in rated.teams] == [[carol.pk], sorted([bob.pk, dave.pk]), [alice.pk]]
    game = "testteams"
    assert rating(carol, game).mu > skill.initial().mu > rating(alice, game).mu
    assert RatingChange.objects.get(match=match, user=alice).rank == 4


def test_matches_with_computer_opponents_are_unrated(alice, score_match):
    match = services.match_create(creator=alice, game="testscores", seat_count=2, bots=["random"])
    assert match.rated is False
    services.match_resign(match_id=match.pk, user=alice)
    assert not Rating.objects.exists() and not RatedMatch.objects.exists()


def test_an_unrated_match_changes_no_rating(alice, bob, score_match):
    play_scores(score_match(alice, bob, rated=False), [9, 0])
    assert not Rating.objects.exists()


def void(match: Match) -> None:
    """What a moderator's cancellation does: the match stops counting, in one transaction."""
    with transaction.atomic():
        Match.objects.filter(pk=match.pk).update(status=Match.Status.CANCELLED)
        match.status = Match.Status.CANCELLED
        signals.match_voided.send(sender=Match, match=match)


def replayed(results: list[tuple[list[int], list[int]]]) -> dict[int, tuple[float, float, int]]:
    """The ratings that playing ``results`` ((user ids by seat, scores)) in order gives."""
    current: dict[int, skill.Skill] = {}
    counts: dict[int, int] = {}
    for users, scores in results:
        ranks = [1 + sum(other > score for other in scores) for score in scores]
        after = skill.rate([[current.get(u, skill.initial())] for u in users], ranks)
        for user, (new,) in zip(users, after, strict=True):
            current[user] = new
            counts[user] = counts.get(user, 0) + 1
    return {u: (round(s.mu, 9), round(s.sigma, 9), counts[u]) for u, s in current.items()}


def test_voiding_a_match_replays_the_games_history_without_it(alice, bob, carol, score_match):
    first = play_scores(score_match(alice, bob), [9, 1])
    second = play_scores(score_match(bob, carol), [9, 1])
    third = play_scores(score_match(carol, alice), [9, 1])
    assert first.finished_at < second.finished_at < third.finished_at
    void(second)
    assert snapshot() == replayed([([alice.pk, bob.pk], [9, 1]), ([carol.pk, alice.pk], [9, 1])])
    assert not RatingChange.objects.filter(match=second).exists()
    # Voiding again changes nothing; neither does a rebuild from the matches themselves.
    settled = snapshot()
    void(second)
    call_command("ratings_rebuild", "testscores", stdout=io.StringIO())
    assert snapshot() == settled


def test_voiding_the_only_match_of_a_player_removes_their_rating(alice, bob, carol, score_match):
    play_scores(score_match(alice, bob), [9, 1])
    lonely = play_scores(score_match(alice, carol), [9, 1])
    void(lonely)
    assert not Rating.objects.filter(user=carol).exists()
    assert rating(alice).matches == 1


def test_a_readjudicated_match_counts_in_its_place_in_history(alice, bob, carol, score_match):
    first = play_scores(score_match(alice, bob), [9, 1])
    play_scores(score_match(bob, carol), [9, 1])
    # A moderator reverses the first result: it is voided, given new places and finished again.
    with committed(), transaction.atomic():
        signals.match_voided.send(sender=Match, match=first)
        Seat.objects.filter(match=first, user=alice).update(rank=2)
        Seat.objects.filter(match=first, user=bob).update(rank=1)
        signals.match_finished.send(sender=Match, match=first)
    assert snapshot() == replayed([([alice.pk, bob.pk], [1, 9]), ([bob.pk, carol.pk], [9, 1])])


def test_rebuilding_gives_the_ratings_the_matches_made(alice, bob, carol, score_match):
    play_scores(score_match(alice, bob), [9, 1])
    play_scores(score_match(bob, carol, alice), [3, 8, 1])
    before = snapshot()
    history = list(
        RatingChange.objects.order_by("finished_at", "match_id", "user_id").values_list("mu_after")
    )
    assert rating_services.game_ratings_rebuild(game="testscores") == 2
    assert snapshot() == before
    assert list(
        RatingChange.objects.order_by("finished_at", "match_id", "user_id").values_list("mu_after")
    ) == (history)


def test_a_result_that_lands_before_later_ones_replays_them(alice, bob, carol, score_match):
    early = play_scores(score_match(alice, bob), [9, 1])
    RatedMatch.objects.filter(match=early).delete()
    Rating.objects.all().delete()
    play_scores(score_match(bob, carol), [9, 1])
    # The missed early result comes in late (its signal was lost): the history is replayed in order.
    with transaction.atomic():
        rating_services.match_rate(match=Match.objects.get(pk=early.pk))
    assert snapshot() == replayed([([alice.pk, bob.pk], [9, 1]), ([bob.pk, carol.pk], [9, 1])])


def test_a_finished_match_is_rated_only_after_its_last_move_commits(alice, bob, score_match):
    match = score_match(alice, bob)
    match.refresh_from_db()
    services.move_play(match_id=match.pk, user=alice, expected_version=match.version, text="score 7")
    match.refresh_from_db()
    with TestCase.captureOnCommitCallbacks(execute=False) as queued:
        services.move_play(match_id=match.pk, user=bob, expected_version=match.version, text="score 3")
    # Finished, and nothing of the ratings written in the move's transaction.
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    assert not RatedMatch.objects.filter(match=match).exists() and not Rating.objects.exists()
    for callback in queued:
        callback()  # the commit's follow-ups: its e-mail, and the rating task (eager here)
    assert rating(alice).mu > rating(bob).mu and rating(alice).matches == 1


def test_the_tick_rates_recent_matches_whose_task_was_lost(alice, bob, carol, score_match):
    lost = score_match(alice, bob)
    for seat, score in ((alice, 7), (bob, 3)):  # no commit follow-ups run: the rating task is lost
        lost.refresh_from_db()
        services.move_play(match_id=lost.pk, user=seat, expected_version=lost.version, text=f"score {score}")
    old = score_match(bob, carol)
    for seat, score in ((bob, 1), (carol, 9)):
        old.refresh_from_db()
        services.move_play(match_id=old.pk, user=seat, expected_version=old.version, text=f"score {score}")
    Match.objects.filter(pk=old.pk).update(finished_at=timezone.now() - rating_services.CATCH_UP_WINDOW * 2)
    unrated = score_match(carol, alice, rated=False)
    play_scores(unrated, [5, 1])
    assert not Rating.objects.exists()
    assert tasks.catch_up() == 1  # the recent rated match; not the old one, not the unrated one
    assert list(RatedMatch.objects.values_list("match_id", flat=True)) == [lost.pk]
    assert rating(alice).mu > rating(bob).mu
    assert tasks.catch_up() == 0  # counted once


def test_a_match_voided_before_its_rating_task_runs_is_not_rated(alice, bob, score_match):
    match = score_match(alice, bob)
    for seat, score in ((alice, 7), (bob, 3)):  # the task is still queued
        match.refresh_from_db()
        services.move_play(
            match_id=match.pk, user=seat, expected_version=match.version, text=f"score {score}"
        )
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ABANDONED)
    assert tasks.match_rate(match.pk) is False
    assert tasks.match_rate(10**9) is False  # a match deleted meanwhile
    assert not RatedMatch.objects.exists() and not Rating.objects.exists()
