"""Finding the move in a reply, whatever the mail client wrapped around it."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from games.mailin import html_to_text, move_from_body, reply_text


def parsed(message: EmailMessage):
    return message_from_bytes(message.as_bytes(), policy=policy.default)


@pytest.mark.parametrize(
    ("body", "move"),
    [
        ("d4", "d4"),
        ("  b2-c3/c3n  \r\n", "b2-c3/c3n"),
        ("\n\n\nd4\nthanks, good game\n", "d4"),
        (
            "d4\n\nOn Mon, 3 Mar 2025 at 10:00, Wallsite <noreply@wallsite.localhost> wrote:\n> Your move\n",
            "d4",
        ),
        ("> It is your move in Wall Go.\n> Open the match\n\nd4\n", "d4"),
        ("On Mon, 3 Mar 2025, Wallsite wrote:\n> It is your move.\n>\n\ne5\n", "e5"),
        (
            "On Mon, 3 Mar 2025 at 10:00, Wallsite <\nnoreply@wallsite.localhost> wrote:\n"
            "> It is your move.\n\nc3\n",
            "c3",
        ),
        ("\u00a0d4\u00a0\n", "d4"),
        ("\ufeffd4\n", "d4"),
    ],
)
def test_the_move_is_the_first_line_of_the_reply_itself(body, move):
    assert move_from_body(body) == move


@pytest.mark.parametrize(
    "body",
    [
        "",
        "\n   \n",
        "> d4\n> quoted only\n",
        "-- \nAlice\nd4\n",
        "--\nSent from my phone\n",
        "-----Original Message-----\nFrom: Wallsite\nd4\n",
        "________________________________\nFrom: Wallsite <noreply@wallsite.localhost>\nd4\n",
        "From: Wallsite <noreply@wallsite.localhost>\nSent: Monday\n",
        "On Mon, 3 Mar 2025, Wallsite wrote:\n> d4\n",
    ],
)
def test_a_reply_with_nothing_of_its_own_has_no_move(body):
    assert move_from_body(body) is None


def test_only_the_first_line_counts():
    assert move_from_body("d4\ne5\nf6\n") == "d4"


def test_plain_text_is_preferred_to_html():
    message = EmailMessage()
    message.set_content("d4\n")
    message.add_alternative("<div>e5</div>", subtype="html")
    assert move_from_body(reply_text(parsed(message))) == "d4"


def test_an_html_only_reply_is_read_as_text_without_its_quoted_part():
    message = EmailMessage()
    message.set_content(
        '<html><head><style>div { color: red }</style></head><body><div dir="ltr">b2-c3/c3n</div><br>'
        '<div class="gmail_quote"><div class="gmail_attr">On Mon, 3 Mar 2025, Wallsite &lt;noreply@'
        "wallsite.localhost&gt; wrote:<br></div><blockquote>It is your move<br>d9</blockquote></div>"
        "</body></html>",
        subtype="html",
    )
    assert move_from_body(reply_text(parsed(message))) == "b2-c3/c3n"


def test_html_line_breaks_come_from_tags_not_from_the_source():
    assert move_from_body(html_to_text("<p>\n  d4\n  </p><p>thanks</p>")) == "d4"
    assert move_from_body(html_to_text("<body>d4<br/>thanks</body>")) == "d4"
    assert move_from_body(html_to_text("<div>&nbsp;</div><div>e5&nbsp;</div>")) == "e5"


def test_an_outlook_html_reply_stops_at_the_rule_above_the_original():
    text = html_to_text("<div><br></div><hr><div><b>From:</b> Wallsite</div><div>d4</div>")
    assert move_from_body(text) is None


@pytest.mark.parametrize("encoding", ["quoted-printable", "base64"])
def test_transfer_encodings_are_decoded(encoding):
    message = EmailMessage()
    message.set_content("b2-c3/c3n\n\nMerci, à bientôt ! " + "très long " * 20 + "\n", cte=encoding)
    raw = message.as_bytes()
    assert (b"=C3=A0" if encoding == "quoted-printable" else b"YjItYzMvYzNu") in raw
    assert move_from_body(reply_text(message_from_bytes(raw, policy=policy.default))) == "b2-c3/c3n"


def test_a_hand_written_quoted_printable_body_with_a_soft_line_break():
    raw = (
        b"From: alice@example.com\r\nSubject: Re: Your move\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
        b"b2-c3/=\r\nc3n\r\n\r\nOn Mon, Wallsite wrote:\r\n> It is your move =E2=80=94 go\r\n"
    )
    assert move_from_body(reply_text(message_from_bytes(raw, policy=policy.default))) == "b2-c3/c3n"


def test_an_unknown_charset_still_yields_the_move():
    raw = (
        b"From: alice@example.com\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=x-no-such-charset\r\n\r\nd4\r\n"
    )
    assert move_from_body(reply_text(message_from_bytes(raw, policy=policy.default))) == "d4"


def test_a_reply_with_only_an_attachment_has_no_text():
    message = EmailMessage()
    message.add_attachment(b"d4", maintype="application", subtype="octet-stream", filename="move.bin")
    assert reply_text(parsed(message)) == ""
