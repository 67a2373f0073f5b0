"""After a match ends, a player offers the others a rematch: a new open match like the old one, once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from games import services
from games.errors import Conflict, Forbidden, RematchExists
from games.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def ended(started_match, alice) -> Match:
    """A Wall Go match with a clock and a reserve that alice resigned: bob won."""
    match = started_match(
        move_time_limit=timedelta(days=2),
        bank_initial=timedelta(days=1),
        bank_increment=timedelta(hours=6),
        pause_weekends=True,
        timeout_policy=Match.Timeout.FORFEIT,
        options={"placement": "round_robin"},
        name="Friday duel",
    )
    services.match_resign(match_id=match.pk, user=alice)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


def test_a_rematch_is_an_open_match_like_the_old_one_with_its_offerer_seated(ended, bob):
    rematch = services.match_rematch(match_id=ended.pk, user=bob)
    assert rematch.status == Match.Status.OPEN and rematch.rematch_of_id == ended.pk
    same = (
        "game",
        "seat_count",
        "options",
        "move_time_limit",
        "bank_initial",
        "bank_increment",
        "bank_max",
        "pause_weekends",
        "timeout_policy",
        "rated",
    )
    assert {f: getattr(rematch, f) for f in same} == {f: getattr(ended, f) for f in same}
    assert rematch.name == "Friday duel (rematch)"
    assert [seat.user for seat in rematch.seats.all()] == [bob]
    ended.refresh_from_db()
    assert ended.rematch == rematch


def test_the_other_player_joining_starts_the_rematch(ended, alice, bob):
    rematch = services.match_rematch(match_id=ended.pk, user=bob)
    services.seat_join(match_id=rematch.pk, user=alice)
    rematch.refresh_from_db()
    assert rematch.status == Match.Status.ACTIVE


def test_a_rematch_of_a_rematch_keeps_one_mark_in_its_name(ended, alice, bob):
    rematch = services.match_rematch(match_id=ended.pk, user=bob)
    services.seat_join(match_id=rematch.pk, user=alice)
    services.match_resign(match_id=rematch.pk, user=alice)
    again = services.match_rematch(match_id=rematch.pk, user=alice)
    assert again.name == "Friday duel (rematch)" and again.rematch_of_id == rematch.pk


def test_a_second_rematch_of_the_same_match_is_refused_naming_the_first(ended, alice, bob):
    first = services.match_rematch(match_id=ended.pk, user=bob)
    with pytest.raises(RematchExists, match=f"match #{first.pk}") as refused:
        services.match_rematch(match_id=ended.pk, user=alice)
    assert refused.value.rematch_id == first.pk and refused.value.status == 409
    assert Match.objects.filter(rematch_of=ended).count() == 1


def test_only_the_match_s_players_may_offer_a_rematch(ended, carol):
    with pytest.raises(Forbidden):
        services.match_rematch(match_id=ended.pk, user=carol)


def test_a_match_still_in_play_or_never_started_has_no_rematch(started_match, alice, bob):
    with pytest.raises(Conflict, match="once the match is over"):
        services.match_rematch(match_id=started_match().pk, user=alice)
    open_match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    services.seat_leave(match_id=open_match.pk, user=alice)  # abandoned before it started
    with pytest.raises(Conflict, match="once the match is over"):
        services.match_rematch(match_id=open_match.pk, user=alice)


def test_a_rematch_against_the_computer_seats_the_computer_again_and_starts(alice):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2, bots=["easy"])
    services.match_resign(match_id=match.pk, user=alice)
    rematch = services.match_rematch(match_id=match.pk, user=alice)
    assert [(seat.user, seat.bot) for seat in rematch.seats.all()] == [(alice, ""), (None, "easy")]
    assert rematch.status == Match.Status.ACTIVE


# --- on the pages ----------------------------------------------------------------------------------------


def test_the_old_page_offers_the_rematch_to_the_other_player_with_a_join_button(client, ended, alice, bob):
    client.force_login(bob)
    response = client.post(reverse("match-rematch", args=[ended.pk]))
    rematch = Match.objects.get(rematch_of=ended)
    assert response["Location"] == rematch.get_absolute_url()
    client.force_login(alice)
    page = client.get(ended.get_absolute_url()).content.decode()
    assert '<strong class="name">bob</strong> offers a rematch' in page
    assert f'action="{reverse("match-join", args=[rematch.pk])}"' in page
    joined = client.post(reverse("match-join", args=[rematch.pk]), follow=True)
    assert (
        "Your move." in joined.content.decode() or "Waiting for the other players." in joined.content.decode()
    )
    assert "The rematch is in play." in client.get(ended.get_absolute_url()).content.decode()


def test_a_second_offer_from_the_page_leads_to_the_rematch_on_offer(client, ended, alice, bob):
    first = services.match_rematch(match_id=ended.pk, user=bob)
    client.force_login(alice)
    response = client.post(reverse("match-rematch", args=[ended.pk]), follow=True)
    assert response.redirect_chain[0][0] == first.get_absolute_url()
    assert "There is already a rematch of this match: here it is." in response.content.decode()


def test_the_offer_button_shows_for_the_players_of_an_ended_match_only(
    client, ended, started_match, bob, carol
):
    client.force_login(bob)
    assert 'data-testid="rematch-offer"' in client.get(ended.get_absolute_url()).content.decode()
    assert (
        'data-testid="rematch-offer"' not in client.get(started_match().get_absolute_url()).content.decode()
    )
    client.force_login(carol)
    assert 'data-testid="rematch-offer"' not in client.get(ended.get_absolute_url()).content.decode()
