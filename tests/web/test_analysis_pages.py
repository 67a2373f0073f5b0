"""Post-game analysis on the replay page: the button, the progress bar and its figures, the marks in the
move list, and the computer's choice drawn on the board before a marked move."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Analysis, Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(started_match, alice, bob):
    """A Wall Go match alice won when bob resigned, after he put his first token in a corner."""
    match = started_match()
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    services.move_play(match_id=match.pk, user=bob, expected_version=1, text="a1")
    services.match_resign(match_id=match.pk, user=bob)
    return Match.objects.get(pk=match.pk)


def replay(client, match, at=None) -> str:
    url = reverse("match-replay", args=[match.pk]) + ("" if at is None else f"?at={at}")
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def analyse(client, match, capture):
    """Asked by the match's winner; the test settings run the queued task at once."""
    client.force_login(match.seats.get(position=0).user)
    with capture(execute=True):
        return client.post(reverse("match-analysis", args=[match.pk]))


def test_a_finished_matchs_replay_offers_the_analysis_to_anyone_logged_in(client, finished, carol):
    client.force_login(carol)  # not a player: anyone who can see the match may ask
    page = replay(client, finished)
    assert "Analyse this match" in page
    assert f'action="{reverse("match-analysis", args=[finished.pk])}"' in page


def test_a_visitor_not_logged_in_is_asked_to_log_in_and_cannot_post(client, finished):
    page = replay(client, finished)
    assert "Analyse this match" not in page and "Log in</a> to have the computer" in page
    response = client.post(reverse("match-analysis", args=[finished.pk]))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not Analysis.objects.exists()


def test_a_match_in_play_offers_no_analysis_and_refuses_one(client, started_match, alice):
    match = started_match()
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    client.force_login(alice)
    assert "Computer analysis" not in replay(client, match)
    response = client.post(reverse("match-analysis", args=[match.pk]), follow=True)
    assert "Only a finished match can be analysed." in response.content.decode()
    assert not Analysis.objects.exists()


def test_while_it_waits_the_page_shows_a_progress_bar_and_the_poll_its_figures(
    client, finished, alice, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks():  # queued; no worker has taken it yet
        services.analysis_request(match_id=finished.pk)
    Analysis.objects.filter(match=finished).update(status=Analysis.Status.RUNNING, done=1, total=2)
    client.force_login(alice)
    page = replay(client, finished)
    assert '<progress id="analysis-bar" max="2" value="1">' in page
    assert "1 of 2 moves" in page and "js/analysis.js" in page
    assert "Analyse this match" not in page
    figures = client.get(reverse("match-analysis-progress", args=[finished.pk]))
    assert figures["Cache-Control"] == "no-store"
    assert figures.json() == {"status": "running", "done": 1, "total": 2}


def test_the_poll_answers_none_before_anyone_asked_and_404_for_no_match(client, finished):
    assert client.get(reverse("match-analysis-progress", args=[finished.pk])).json()["status"] == "none"
    missing = client.get(reverse("match-analysis-progress", args=[987654]))
    assert missing.status_code == 404 and missing.json()["detail"] == "There is no such match."


def test_once_done_the_move_list_marks_the_blunder_with_a_legend(
    client, finished, alice, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    response = analyse(client, finished, django_capture_on_commit_callbacks)
    assert response["Location"] == reverse("match-replay", args=[finished.pk]) + "#analysis"
    page = replay(client, finished)
    assert 'data-testid="move-list"' in page
    assert page.count('data-testid="move-mark"') == 1  # only bob's corner token
    assert '<a href="?at=2"><code>a1</code></a> <span class="move-mark" title="A blunder"' in page
    assert "1 move marked" in page
    assert "a blunder: at least 5 squares better" in page
    assert "Analyse this match" not in page


def test_at_the_marked_move_the_board_before_it_shows_the_computers_choice(
    client, finished, alice, django_capture_on_commit_callbacks
):
    analyse(client, finished, django_capture_on_commit_callbacks)
    entry = next(e for e in Analysis.objects.get(match=finished).marks if e["seq"] == 2)
    page = replay(client, finished, 2)
    assert f"Better: <code>{entry['best']}</code>" in page
    assert "squares better by the computer" in page
    # The board is the position before bob's move: alice's token alone, and the choice ready to draw.
    board = page[page.index('data-testid="suggestion-board"') :]
    board = board[: board.index("</svg>")]
    assert 'data-on="sq-d4"' in board and 'data-on="sq-a1"' not in board
    raw = page[page.index('id="analysis-suggestion-choice"') :]
    choice = json.loads(raw[raw.index(">") + 1 : raw.index("</script>")])
    assert choice == {"path": [f"sq-{entry['best_move']['place']}"], "text": entry["best"]}
    assert "js/pending-move.js" in page and "js/analysis.js" in page
    # An unmarked move has none of it.
    assert 'data-testid="analysis-suggestion"' not in replay(client, finished, 1)


def test_the_marks_are_kept_in_the_cache_until_the_analysis_changes(
    client, finished, django_capture_on_commit_callbacks
):
    analyse(client, finished, django_capture_on_commit_callbacks)
    assert 'data-testid="move-mark"' in replay(client, finished, 1)
    # The same analysis as far as the key knows: the page keeps what it worked out.
    Analysis.objects.filter(match=finished).update(marks=[])
    assert 'data-testid="move-mark"' in replay(client, finished, 1)
    # Analysed again (a new finish time): the page follows.
    Analysis.objects.filter(match=finished).update(finished_at=timezone.now())
    assert 'data-testid="move-mark"' not in replay(client, finished, 1)


def test_in_a_game_with_secrets_only_the_mover_sees_the_marks_of_its_moves(client, alice, bob, carol):
    match = services.match_create(creator=alice, game="testdice", seat_count=2)
    services.seat_join(match_id=match.pk, user=bob)
    match = Match.objects.get(pk=match.pk)
    services.chance_resolve(match_id=match.pk, version=match.version)
    match = Match.objects.get(pk=match.pk)
    hand = match.engine.legal_moves(match.engine_state, 0)
    played = services.move_play(match_id=match.pk, user=alice, expected_version=match.version, move=hand[0])
    services.match_resign(match_id=match.pk, user=bob)
    match = Match.objects.get(pk=match.pk)
    other = hand[-1]
    mark = {
        "seq": played.seq,
        "mark": "??",
        "loss": 9.0,
        "best": match.engine.format_move(other),
        "best_move": other,
    }
    Analysis.objects.create(
        match=match, status="done", marks=[mark], done=1, total=1, finished_at=timezone.now()
    )
    seen = {}
    for who in (alice, bob, carol, None):
        client.logout()
        if who is not None:
            client.force_login(who)
        seen[who.username if who else "anonymous"] = 'data-testid="move-mark"' in replay(
            client, match, played.seq
        )
    assert seen == {"alice": True, "bob": False, "carol": False, "anonymous": False}
    assert "each player sees only the marks of their own moves" in replay(client, match)
