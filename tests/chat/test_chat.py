"""A match's chat: its players write, spectators read only when the match allows it, every message is
escaped, the rate limit holds, and moderators hide messages."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from chat import services
from chat.models import ChatMessage
from games import services as games
from games.errors import Conflict, Forbidden, ServiceError
from games.selectors import match_cache_id, match_live_key_of
from moderation import services as moderation

pytestmark = pytest.mark.django_db


def chat_url(match) -> str:
    return reverse("chat-post", args=[match.pk])


def page(client, match) -> str:
    response = client.get(match.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def test_a_player_writes_and_the_other_player_reads_it(client, started_match, alice, bob):
    match = started_match()
    client.force_login(alice)
    response = client.post(chat_url(match), {"text": "Good luck!"})
    assert response.status_code == 302 and response["Location"].endswith("#chat")
    client.force_login(bob)
    html = page(client, match)
    assert 'data-testid="chat-form"' in html and "Good luck!" in html


def test_a_message_is_escaped_on_the_page(client, started_match, alice):
    match = started_match()
    services.message_post(match_id=match.pk, user=alice, text='<script>alert("x")</script> & <b>bold</b>')
    client.force_login(alice)
    html = page(client, match)
    assert "<script>alert" not in html and "<b>bold</b>" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in html


def test_spectators_read_the_chat_only_when_the_match_allows_it(client, started_match, alice, carol):
    match = started_match()
    services.message_post(match_id=match.pk, user=alice, text="Just between us")
    client.force_login(carol)
    html = page(client, match)
    assert "Just between us" not in html and 'data-testid="chat"' not in html
    client.logout()
    assert "Just between us" not in page(client, match)
    match.spectators_read_chat = True
    match.save(update_fields=["spectators_read_chat"])
    client.force_login(carol)
    html = page(client, match)
    assert "Just between us" in html and 'data-testid="chat-form"' not in html
    assert "anyone watching the match can read it" in html


def test_only_the_players_write(client, started_match, carol):
    match = started_match()
    with pytest.raises(Forbidden, match="Only the players"):
        services.message_post(match_id=match.pk, user=carol, text="Hi")
    client.force_login(carol)
    response = client.post(chat_url(match), {"text": "Hi"}, follow=True)
    assert "Only the players of this match can write in its chat." in response.content.decode()
    assert not ChatMessage.objects.exists()


def test_the_creator_chooses_before_the_start_whether_spectators_read(client, alice, bob):
    match = games.match_create(creator=alice, game="wallgo", seat_count=2)
    with pytest.raises(Forbidden):
        services.spectators_read_set(match_id=match.pk, user=bob, allowed=True)
    client.force_login(alice)
    client.post(reverse("chat-spectators", args=[match.pk]), {"allowed": "1"})
    match.refresh_from_db()
    assert match.spectators_read_chat
    games.seat_join(match_id=match.pk, user=bob)
    with pytest.raises(Conflict, match="before the match starts"):
        services.spectators_read_set(match_id=match.pk, user=alice, allowed=False)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("   ", "Write a message first."),
        ("x" * 501, "at most 500 characters"),
        ("\x01\x02", "Write a message"),
        ("a\x00b", r"Your message holds a NUL character \(U\+0000\): remove it"),
        ("a\ud800b", r"Your message holds a lone surrogate \(U\+D800\)"),
        ("a\U0010fffeb", r"Your message holds U\+10FFFE, which Unicode reserves as a non-character"),
    ],
)
def test_an_empty_or_long_message_is_refused(started_match, alice, text, reason):
    match = started_match()
    with pytest.raises(ServiceError, match=reason):
        services.message_post(match_id=match.pk, user=alice, text=text)
    assert not ChatMessage.objects.exists()


def test_control_characters_are_dropped(started_match, alice):
    match = started_match()
    message = services.message_post(match_id=match.pk, user=alice, text="a\x01b\x07c\nd")
    assert message.text == "abc\nd"


def test_a_message_that_is_not_text_comes_back_with_the_reason(client, started_match, alice):
    match = started_match()
    client.force_login(alice)
    response = client.post(chat_url(match), {"text": "gg\ufdd0"}, follow=True)
    assert "Your message holds U+FDD0, which Unicode reserves as a non-character" in response.content.decode()
    assert not ChatMessage.objects.exists()


def test_writing_too_fast_is_refused_with_a_clear_message_and_the_draft_kept(client, started_match, alice):
    match = started_match()
    client.force_login(alice)
    for number in range(5):
        client.post(chat_url(match), {"text": f"message {number}"})
    response = client.post(chat_url(match), {"text": "one too many"}, follow=True)
    html = response.content.decode()
    assert "You are writing too fast: at most 5 messages a minute." in html
    assert ">one too many</textarea>" in html
    assert ChatMessage.objects.count() == 5


def test_the_rate_limit_is_a_setting(settings, started_match, alice):
    settings.CHAT_RATE_LIMIT = 1
    match = started_match()
    services.message_post(match_id=match.pk, user=alice, text="one")
    with pytest.raises(services.RateLimited):
        services.message_post(match_id=match.pk, user=alice, text="two")


def test_a_hidden_message_is_gone_for_players_and_struck_out_for_moderators(
    client, started_match, alice, bob, moderator
):
    match = started_match()
    message = services.message_post(match_id=match.pk, user=bob, text="You are an idiot")
    moderation.message_hide(moderator=moderator, message_id=message.pk, reason="Insult")
    client.force_login(alice)
    html = page(client, match)
    assert "You are an idiot" not in html
    assert "(hidden by a moderator: Insult)" in html
    assert "A moderator hid a chat message by bob: Insult" in html  # the match log
    client.force_login(moderator)
    assert "<del>You are an idiot</del>" in page(client, match)


def test_a_message_from_someone_else_can_be_reported(client, started_match, alice, bob):
    match = started_match()
    mine = services.message_post(match_id=match.pk, user=alice, text="hello")
    theirs = services.message_post(match_id=match.pk, user=bob, text="rude words")
    client.force_login(alice)
    html = page(client, match)
    assert f"?message={theirs.pk}" in html and f"?message={mine.pk}" not in html


def test_the_rows_come_from_the_cache_until_a_message_is_posted_or_hidden(
    client, started_match, alice, bob, moderator
):
    """The rows are kept under the match's live key: a second load reads no message, and a new or
    hidden message shows at the next load all the same."""
    match = started_match()
    first = services.message_post(match_id=match.pk, user=bob, text="Hello there")
    client.force_login(alice)
    assert "Hello there" in page(client, match)
    with CaptureQueriesContext(connection) as queries:
        assert "Hello there" in page(client, match)
    assert not [q for q in queries if '"chat_chatmessage"' in q["sql"]], "the rows were read again"
    services.message_post(match_id=match.pk, user=bob, text="Second thoughts")
    assert "Second thoughts" in page(client, match)
    moderation.message_hide(moderator=moderator, message_id=first.pk, reason="Spam")
    html = page(client, match)
    assert "Hello there" not in html and "(hidden by a moderator: Spam)" in html


def test_the_cached_rows_hold_nothing_of_the_authors_but_their_names(client, started_match, alice, bob):
    match = started_match()
    services.message_post(match_id=match.pk, user=bob, text="Hello there")
    client.force_login(alice)
    page(client, match)
    match.refresh_from_db()
    rows = cache.get(f"chat:rows:{match_cache_id(match)}:{match_live_key_of(match)}")
    assert [row.text for row in rows] == ["Hello there"]
    author = rows[0].author
    assert author.username == "bob"
    assert {"password", "email"}.isdisjoint(author.__dict__), "the author's other fields were cached"
