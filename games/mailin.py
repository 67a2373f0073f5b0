"""Moves by e-mail: a player answers a "your turn" e-mail with the move on the first line. A reply
saying ACCEPT or REFUSE instead answers the takeback request open at the e-mail's version (the request's
own e-mail carries such an address).

Each turn e-mail carries a Reply-To of its own, ``move+<match>-<user>-<version>-<mac>@<domain>``. The
MAC (an HMAC of the three numbers under the site's secret, truncated) makes the address unforgeable and
ties it to one player in one match at one position; the version in it makes a reply to an old e-mail
stale exactly like an old page. The address is lowercase from end to end, because some mail systems
change the case of local parts.

``mail_move_handle`` does the work for one received message and answers the player;
``GatewayHandler`` is the aiosmtpd handler that ``manage.py mail_gateway`` serves. Addresses that are
not valid reply addresses are refused during the SMTP dialogue, so forged mail causes no answer
anywhere (no backscatter); every answer goes to the address on the player's account, never to the
envelope sender.

Who sent a reply: the reply address is the capability (whoever holds it can answer that one turn).
Without ``MAIL_GATEWAY_TRUSTED_AUTHSERV_ID`` the sender check only compares the envelope sender and
the From: header, which anyone can forge. With it, the check is a second factor: the account's
address must be the From: address and be vouched for by the Authentication-Results header (RFC 8601)
of the relay in front of the gateway, with a DKIM or SPF pass for the account's domain. The relay
must remove Authentication-Results headers that arrive claiming its authserv-id (RFC 8601 section 5),
as Postfix with OpenDKIM/OpenDMARC does, or a sender could write the verdict themselves.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage as ParsedMessage
from email.utils import parseaddr
from html.parser import HTMLParser

from aiosmtpd.controller import Controller
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.mail import EmailMessage
from django.db import connections

from accounts.models import User
from games import replies, services
from games.errors import Conflict, ServiceError
from games.models import Match, Takeback
from games.replies import reply_parse
from games.text import text_problem

log = logging.getLogger(__name__)

# A move is one short line: anything longer is not worth echoing back in full.
ECHO_LIMIT = 80


# --- reading a reply ----------------------------------------------------------------------------------

# What a mail client puts between the reply and the message it answers. "On ... wrote:" is followed by
# quoted ("> ") lines, so it is passed over like them (a bottom-posted move comes after it); the others
# introduce the original text unquoted, so reading stops there.
_WROTE_RE = re.compile(r"\bwrote:$", re.IGNORECASE)
_STOP_RE = re.compile(
    r"^(-{2,}\s*(original message|forwarded message)\s*-{2,}|_{5,}|-{5,}|(from|sent|to|subject):\s.*)$",
    re.IGNORECASE,
)
# RFC 3676's signature separator is "-- "; clients that trim trailing spaces leave "--".
_SIGNATURE = "--"


def move_from_body(text: str) -> str | None:
    """The move in a reply's text: its first line that is not blank, quoted, an attribution or past a
    signature marker, stripped; None when there is no such line."""
    lines = [_clean(line) for line in text.splitlines()]
    for index, line in enumerate(lines):
        if not line or line.startswith(">"):
            continue
        if line == _SIGNATURE or _STOP_RE.match(line):
            return None
        if _WROTE_RE.search(line) or _attribution_start(line, lines[index + 1 : index + 3]):
            continue
        return line
    return None


def _clean(line: str) -> str:
    # Non-breaking and zero-width spaces come from HTML editors and phones.
    return line.replace("\u00a0", " ").replace("\u200b", "").replace("\ufeff", "").strip()


def _attribution_start(line: str, following: list[str]) -> bool:
    """The first half of "On <date>, <name> <address> wrote:", which Gmail wraps over two lines."""
    if not re.match(r"^on\b", line, re.IGNORECASE):
        return False
    return any(_WROTE_RE.search(later) for later in following if later)


class _HTMLText(HTMLParser):
    """HTML to lines of text, crudely: block elements break lines, quoted blocks and styles vanish."""

    SKIP = frozenset({"head", "style", "script", "title", "blockquote"})
    BREAK = frozenset(
        {"br", "p", "div", "li", "tr", "table", "ul", "ol", "pre", "h1", "h2", "h3", "h4", "h5", "h6"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        elif self.skipping:
            return
        elif tag == "hr":
            # Outlook puts a rule above the original message: reading stops there, as at "-----".
            self.parts.append("\n-----\n")
        elif tag in self.BREAK:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.SKIP:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif not self.skipping and tag in self.BREAK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            # Line breaks in HTML source are spaces on screen; only the tags above break lines.
            self.parts.append(re.sub(r"\s+", " ", data))


def html_to_text(html: str) -> str:
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def reply_text(message: ParsedMessage) -> str:
    """The reply's words: its text/plain part, else its HTML part as text (transfer encodings and
    charsets decoded by the email package)."""
    part = message.get_body(preferencelist=("plain",))
    if part is not None:
        return _content(part)
    part = message.get_body(preferencelist=("html",))
    if part is not None:
        return html_to_text(_content(part))
    return ""


def _content(part: ParsedMessage) -> str:
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, ValueError):
        # An unknown or lying charset: the move is ASCII, so a lossy decoding still finds it.
        content = (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
    return content if isinstance(content, str) else ""


# --- who sent a reply ---------------------------------------------------------------------------------

OTHER_ADDRESS = (
    "it was sent from an address other than the one on your account. "
    "Reply from the address our e-mails go to."
)
UNVERIFIED = (
    "our mail server could not confirm that it came from the address on your account (it found no "
    "passing DKIM signature or SPF check for your address's domain). Reply from the address our e-mails "
    "go to, with your usual mail program."
)


@dataclass(frozen=True)
class AuthResult:
    """One result of an Authentication-Results header, such as ``dkim=pass header.d=example.com``:
    method, result and property names in lower case, property values as written."""

    method: str
    result: str
    properties: dict[str, str]


# RFC 8601's Keyword, which method, result, ptype and property names all are.
_KEYWORD = r"[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?"
_METHOD_RE = re.compile(rf"({_KEYWORD})(?:/\d+)?")
_KEYWORD_RE = re.compile(_KEYWORD)
_PROPERTY_RE = re.compile(rf"{_KEYWORD}\.{_KEYWORD}")


def _auth_segments(value: str) -> list[list[str | None]] | None:
    """The header value cut at each ";" into words, with None for each "=". Comments (nested, with
    escapes) drop out and separate words; a quoted string is unquoted into the word around it, so
    ``"a;b"`` stays one word. None when a quoted string or a comment is not closed."""
    segments: list[list[str | None]] = [[]]
    word: list[str] | None = None
    depth = 0
    index = 0
    while index < len(value):
        char = value[index]
        if depth:
            if char == "\\":
                index += 1
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
        elif char == '"':
            word = word if word is not None else []
            index += 1
            while index < len(value) and value[index] != '"':
                if value[index] == "\\":
                    index += 1
                word.append(value[index : index + 1])
                index += 1
            if index >= len(value):
                return None
        elif char in "(=;" or char.isspace():
            if word is not None:
                segments[-1].append("".join(word))
                word = None
            if char == "(":
                depth = 1
            elif char == "=":
                segments[-1].append(None)
            elif char == ";":
                segments.append([])
        else:
            word = word if word is not None else []
            word.append(char)
        index += 1
    if depth:
        return None
    if word is not None:
        segments[-1].append("".join(word))
    return segments


def authentication_results_parse(value: str) -> tuple[str, list[AuthResult]] | None:
    """The authserv-id (lower case) and the results of one Authentication-Results header value
    (RFC 8601, or RFC 7001 with its version number); None when the value does not follow the grammar,
    which the caller treats as no authentication at all."""
    segments = _auth_segments(value)
    if segments is None:
        return None
    head, *rest = segments
    if not 1 <= len(head) <= 2 or None in head or not head[0]:
        return None
    if len(head) == 2 and not str(head[1]).isdigit():
        return None
    authserv_id = str(head[0]).lower()
    # A stray ";" at the end is tolerated: some relays write one.
    rest = [segment for segment in rest if segment]
    if len(rest) == 1 and len(rest[0]) == 1 and str(rest[0][0]).lower() == "none":
        return authserv_id, []  # "; none": no method ran
    results = [_resinfo_parse(segment) for segment in rest]
    if not results or any(result is None for result in results):
        return None
    return authserv_id, [result for result in results if result is not None]


def _resinfo_parse(tokens: list[str | None]) -> AuthResult | None:
    """``method[/version] = result [reason=value] [ptype.property=value ...]``, with any amount of
    space (and of comments, already gone) around "=", "." and "/"."""
    pairs: list[tuple[str, str]] = []
    index = 0
    while index < len(tokens):
        # The name: the words up to "=", joined, so that "header . d" reads as "header.d".
        name: list[str] = []
        while index < len(tokens) and tokens[index] is not None:
            name.append(str(tokens[index]))
            index += 1
        if not name or index + 1 >= len(tokens) or tokens[index + 1] is None:
            return None
        pairs.append(("".join(name).lower(), str(tokens[index + 1])))
        index += 2
    (method, result), *rest = pairs
    found = _METHOD_RE.fullmatch(method)
    if found is None or not _KEYWORD_RE.fullmatch(result.lower()):
        return None
    properties: dict[str, str] = {}
    for name, text in rest:
        if name == "reason":
            continue
        # A property given twice is ambiguous: which one did the relay check?
        if not _PROPERTY_RE.fullmatch(name) or name in properties:
            return None
        properties[name] = text
    return AuthResult(method=found.group(1), result=result.lower(), properties=properties)


def relay_results(message: ParsedMessage, *, trusted: str) -> list[AuthResult]:
    """The results in the trusted relay's own Authentication-Results headers.

    Headers with another authserv-id are ignored: anyone upstream, the sender included, can write
    them. Of those with the relay's id, only the topmost run counts (from the first one, reading down,
    to the next Received: header, which marks the hop before the relay): a relay prepends its headers,
    so a copy further down came with the message. That is only a second line of defence; the relay
    must remove incoming headers with its id (RFC 8601 section 5).
    """
    results: list[AuthResult] = []
    started = False
    for name, value in message.raw_items():
        name = name.strip().lower()
        if name == "received" and started:
            break
        if name != "authentication-results":
            continue
        parsed = authentication_results_parse(str(value))
        if parsed is None or parsed[0] != trusted:
            # A header that does not parse cannot be told apart from one by another server.
            continue
        started = True
        results.extend(parsed[1])
    return results


def sender_refusal(message: ParsedMessage, *, account: str, trusted: str) -> tuple[str, str] | None:
    """Why the trusted relay's verdict does not show that the account's owner sent the message, as
    (reason for the player, detail for the log); None when it does.

    Accepted: the sole From: address is the account's, and the relay reports ``dkim=pass`` with
    ``header.d`` or ``header.i`` in the account's domain, or ``spf=pass`` with ``smtp.mailfrom`` in
    it. The From: address is required in both cases: a large provider signs (and sends) every user's
    mail with its one domain, so the domain alone says only "some user of that provider", while the
    provider does not let one user write another's From: address.
    """
    from_address = _sole_from_address(message)
    if from_address != account.lower():
        return OTHER_ADDRESS, f"From: is {from_address or 'not a single address'!r}, not the account's"
    domain = _domain_normal(account.rpartition("@")[2])
    results = relay_results(message, trusted=trusted)
    for result in results:
        if result.result != "pass":
            continue
        if result.method == "dkim":
            names = ("header.d", "header.i")
        elif result.method == "spf":
            names = ("smtp.mailfrom",)
        else:
            continue
        for name in names:
            if name in result.properties and _aligned(domain, _property_domain(result.properties[name])):
                return None
    # The values come from the message: repr() keeps line breaks and the like out of the log.
    seen = "; ".join(
        " ".join([f"{r.method}={r.result}", *(f"{k}={v!r}" for k, v in r.properties.items())])
        for r in results
    )
    return UNVERIFIED, f"no dkim or spf pass for {domain} from {trusted} (its results: {seen or 'none'})"


def _aligned(account_domain: str, authenticated: str) -> bool:
    """DMARC's relaxed alignment, in one direction only: the account's domain equals the authenticated
    domain or is a subdomain of it (bob@mail.example.com with d=example.com). Whoever controls the DNS
    of example.com controls mail.example.com's too, so this trusts no one new. The other direction
    (d=sub.example.com for bob@example.com) is refused: a domain may hand subdomains to its users.
    Without the public suffix list a single-label domain ("com") is refused outright."""
    if "." not in authenticated:
        return False
    return account_domain == authenticated or account_domain.endswith("." + authenticated)


def _property_domain(value: str) -> str:
    """The domain of ``example.com``, ``@example.com`` or ``bob@example.com`` (angle brackets, which
    some relays write around an address, tolerated)."""
    return _domain_normal(value.strip().strip("<>").rpartition("@")[2])


def _domain_normal(domain: str) -> str:
    domain = domain.strip().rstrip(".").lower()
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain


def _sole_from_address(message: ParsedMessage) -> str:
    """The From: address when there is exactly one From: header naming one mailbox, else "": with two,
    the relay's DMARC check and this code might read different ones."""
    try:
        headers = message.get_all("From") or []
        if len(headers) != 1:
            return ""
        addresses = getattr(headers[0], "addresses", ())
        if len(addresses) != 1 or not addresses[0].addr_spec:
            return ""
        return addresses[0].addr_spec.lower()
    except (ValueError, IndexError, AttributeError):
        return ""


def _trusted_authserv_id() -> str:
    return (getattr(settings, "MAIL_GATEWAY_TRUSTED_AUTHSERV_ID", "") or "").strip().lower()


# --- handling one message -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What became of one received message.

    ``smtp`` is the reply to the DATA command. ``to``/``subject``/``body`` describe the answer mailed
    to the player; ``to`` is empty when none was sent (refused, ignored).
    """

    ok: bool
    smtp: str
    to: str = ""
    subject: str = ""
    body: str = ""


NO_MAILBOX = "550 5.1.1 No such mailbox"


def _max_bytes() -> int:
    return getattr(settings, "MAIL_GATEWAY_MAX_BYTES", 256 * 1024)


def mail_move_handle(*, envelope_from: str, recipients: list[str], raw: bytes) -> Outcome:
    """Play the move in a reply and answer the player; see the module's docstring.

    The move goes through ``services.move_play`` like a move from the web page, with the version the
    turn e-mail was written for.
    """
    if len(raw) > _max_bytes():
        return Outcome(ok=False, smtp="552 5.3.4 Message too big for a move")
    parsed = next((ids for ids in map(reply_parse, recipients) if ids is not None), None)
    if parsed is None:
        return Outcome(ok=False, smtp=NO_MAILBOX)
    match_id, user_id, version = parsed
    user = User.objects.filter(pk=user_id, is_active=True).first()
    match = Match.objects.filter(pk=match_id).first()
    if user is None or not user.email or match is None:
        # A genuine address whose account or match is gone: refuse, and write to nobody.
        return Outcome(ok=False, smtp=NO_MAILBOX)

    message = message_from_bytes(raw, policy=policy.default)
    # SMTP gives a bounce's empty sender as "<>" (aiosmtpd passes it on as such).
    sender = parseaddr(envelope_from or "")[1].strip().lower()
    automatic = _automatic_reason(message, sender)
    if automatic:
        log.info("Ignored mail for match %s from %r: %s", match_id, sender, automatic)
        return Outcome(ok=False, smtp=f"250 2.0.0 Ignored: {automatic}")

    subject = _answer_subject(message, match)
    trusted = _trusted_authserv_id()
    if trusted:
        refusal = sender_refusal(message, account=user.email, trusted=trusted)
        if refusal is not None:
            reason, detail = refusal
            log.warning(
                "Refused a reply for match %s as user %s (envelope sender %r): %s",
                match_id,
                user_id,
                sender,
                detail,
            )
            return _answer_failure(user=user, match=match, subject=subject, reason=reason, message=message)
    elif user.email.lower() not in {sender, *_from_addresses(message)}:
        # Advisory only, as both addresses can be forged: it stops a forwarded turn e-mail, not a
        # forger who holds the reply address. Only the account's owner hears about it.
        return _answer_failure(user=user, match=match, subject=subject, reason=OTHER_ADDRESS, message=message)

    text = move_from_body(reply_text(message))
    if text is None:
        reason = "we found no move on the first line of your reply."
        return _answer_failure(user=user, match=match, subject=subject, reason=reason, message=message)
    unreadable = _unreadable(message, text)
    if unreadable:
        # Not echoed: the answer could not even be encoded with a lone surrogate in it.
        return _answer_failure(user=user, match=match, subject=subject, reason=unreadable, message=message)

    accept = takeback_word(text)
    if accept is not None:
        return _takeback_reply(
            user=user, match=match, subject=subject, message=message, accept=accept, version=version
        )
    try:
        played = services.move_play(match_id=match.pk, user=user, expected_version=version, text=text)
    except ServiceError as exc:
        reason = _reason(exc, match_id=match.pk, version=version)
        return _answer_failure(
            user=user, match=match, subject=subject, reason=reason, message=message, wrote=text
        )
    match.refresh_from_db()
    lines = [f"Played {played.notation} in {match.display_name}.", _after_move(match, user)]
    return _answer(user=user, match=match, subject=subject, lines=lines, message=message, ok=True)


# The answers to a takeback request (games/services/takebacks.py) that a reply may give instead of a move.
TAKEBACK_WORDS = {"accept": True, "accepted": True, "refuse": False, "refused": False}


def takeback_word(text: str) -> bool | None:
    """True for a reply that accepts a takeback request, False for one that refuses it, None otherwise."""
    return TAKEBACK_WORDS.get(text.strip(" .!").lower())


def _takeback_reply(
    *, user: User, match: Match, subject: str, message: ParsedMessage, accept: bool, version: int
) -> Outcome:
    """Answer the takeback request the e-mail was about; the address's version names it, so a reply
    after the game moved on finds it lapsed."""
    try:
        takeback = services.takeback_answer(match_id=match.pk, user=user, accept=accept, version=version)
    except ServiceError as exc:
        reason = exc.message[:1].lower() + exc.message[1:]
        lines = [f"Your answer in {match.display_name} was not recorded: {reason}"]
        return _answer(
            user=user,
            match=match,
            subject=subject,
            lines=lines,
            message=message,
            ok=False,
            smtp="250 2.0.0 Answer not recorded; the player is told why",
        )
    asker = takeback.seat.player_name
    notation = takeback.move.public_notation
    if takeback.status == Takeback.Status.ACCEPTED:
        line = f"You accepted: {asker}'s move {notation} in {match.display_name} was taken back."
    elif takeback.status == Takeback.Status.REFUSED:
        line = f"You refused: {asker}'s move {notation} in {match.display_name} stands."
    else:
        line = (
            f"You accepted {asker}'s request to take back {notation}; the other players have still to answer."
        )
    return _answer(
        user=user,
        match=match,
        subject=subject,
        lines=[line],
        message=message,
        ok=True,
        smtp="250 2.0.0 Answer recorded",
    )


def _automatic_reason(message: ParsedMessage, sender: str) -> str:
    """Why a message must not be acted on or answered (an auto-reply, a bounce, our own mail)."""
    auto = str(message.get("Auto-Submitted", "no")).split(";")[0].strip().lower()
    if auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = str(message.get("Precedence", "")).strip().lower()
    if precedence in {"bulk", "junk", "list"}:
        return f"Precedence: {precedence}"
    if message.get("X-Autoreply") or message.get("X-Autorespond"):
        return "an automatic reply"
    if not sender:
        return "a delivery report (empty envelope sender)"
    own = parseaddr(settings.DEFAULT_FROM_EMAIL)[1].lower()
    domain = "@" + replies.domain()
    for address in {sender, *_from_addresses(message)}:
        if address == own or address.endswith(domain):
            return "sent by this site"
    return ""


def _from_addresses(message: ParsedMessage) -> set[str]:
    try:
        header = message.get("From")
        addresses = getattr(header, "addresses", ()) if header is not None else ()
        return {address.addr_spec.lower() for address in addresses if address.addr_spec}
    except (ValueError, IndexError, AttributeError):
        return set()


def _reason(exc: ServiceError, *, match_id: int, version: int) -> str:
    """The service's sentence, except that "since you loaded the page" becomes "since this e-mail"."""
    if isinstance(exc, Conflict):
        current = Match.objects.filter(pk=match_id).values("status", "version").first()
        if current and current["status"] == Match.Status.ACTIVE and current["version"] != version:
            return "the game has moved on since this e-mail was sent. Look at the board again."
    # The sentence continues "was not played: ", so it starts in lower case.
    message = exc.message
    return message[:1].lower() + message[1:]


def _after_move(match: Match, user: User) -> str:
    """Whose move it is now, from public facts only: the open turns and the result."""
    if match.status != Match.Status.ACTIVE:
        return f"The match is over. {match.result_text}".strip()
    waiting = list(match.turns.filter(closed_at__isnull=True).select_related("seat__user"))
    if any(turn.seat.user_id == user.pk for turn in waiting):
        return "It is your move again."
    if not waiting:
        return "The game takes its next automatic step now."
    names = " and ".join(turn.seat.player_name for turn in waiting)
    return f"It is now {names}'s move." if len(waiting) == 1 else f"It is now the move of {names}."


def _answer_failure(
    *,
    user: User,
    match: Match,
    subject: str,
    reason: str,
    message: ParsedMessage,
    wrote: str | None = None,
) -> Outcome:
    lines = [f"Your move in {match.display_name} was not played: {reason}"]
    if wrote is not None:
        echo = wrote if len(wrote) <= ECHO_LIMIT else wrote[: ECHO_LIMIT - 1] + "…"
        lines.append(f"The first line of your reply was: {echo}")
    return _answer(user=user, match=match, subject=subject, lines=lines, message=message, ok=False)


def _answer(
    *,
    user: User,
    match: Match,
    subject: str,
    lines: list[str],
    message: ParsedMessage,
    ok: bool,
    smtp: str = "",
) -> Outcome:
    url = settings.SITE_URL.rstrip("/") + match.get_absolute_url()
    body = "\n\n".join([f"Hello {user.username},", *lines, f"Open the match: {url}", "Wallsite"]) + "\n"
    # RFC 3834: an automatic answer, so that the player's own auto-responder leaves it alone.
    headers = {"Auto-Submitted": "auto-replied"}
    message_id = str(message.get("Message-ID", "")).strip()
    if re.fullmatch(r"<[^<>\s]{1,900}>", message_id):
        headers["In-Reply-To"] = message_id
        headers["References"] = message_id
    answer = EmailMessage(subject=subject, body=body, to=[user.email], headers=headers)
    try:
        answer.send()
    except Exception:
        # The move (if any) is saved; failing the SMTP transaction now would make the sender retry
        # and earn a "moved on" answer, so the lost answer is only logged.
        log.exception("Could not send the answer about match %s to user %s", match.pk, user.pk)
    return Outcome(
        ok=ok,
        smtp=smtp or ("250 2.0.0 Move played" if ok else "250 2.0.0 Move not played; the player is told why"),
        to=user.email,
        subject=subject,
        body=body,
    )


def _unreadable(message: ParsedMessage, text: str) -> str | None:
    """Why the reply's subject or its move is not text the site accepts (games/text.py: a NUL, a lone
    surrogate, a non-character; an odd charset such as UTF-7 can spell them), as the end of a sentence."""
    problem = text_problem(_subject(message))
    if problem:
        return f"the subject of your reply {problem}."
    problem = text_problem(text)
    if problem:
        return f"the first line of your reply {problem}."
    return None


def _subject(message: ParsedMessage) -> str:
    try:
        return " ".join(str(message.get("Subject", "")).split())
    except (ValueError, IndexError):
        return ""


def _answer_subject(message: ParsedMessage, match: Match) -> str:
    original = _subject(message)
    if not original or text_problem(original):
        original = f"Your move in {match.display_name}"
    subject = original if original.lower().startswith("re:") else f"Re: {original}"
    return subject if len(subject) <= 150 else subject[:149] + "…"


# --- the SMTP side ------------------------------------------------------------------------------------


class GatewayHandler:
    """aiosmtpd handler: recipients are checked in the event loop (a signature check, no database);
    the message is handled in a worker thread, where the ORM may run."""

    async def handle_RCPT(self, server, session, envelope, address: str, rcpt_options: list[str]) -> str:
        if reply_parse(address) is None:
            return NO_MAILBOX
        if envelope.rcpt_tos:
            # One move per message: the client delivers the next one in a transaction of its own.
            return "452 4.5.3 One reply address per message, please"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        try:
            outcome = await sync_to_async(_handle_in_thread, thread_sensitive=True)(
                envelope_from=envelope.mail_from or "", recipients=list(envelope.rcpt_tos), raw=raw
            )
        except Exception:
            log.exception("Handling a reply for %s failed", envelope.rcpt_tos)
            # Temporary: the sender's server tries again later, when the database may be back.
            return "451 4.3.0 Could not handle the message now; try again later"
        return outcome.smtp


def _handle_in_thread(*, envelope_from: str, recipients: list[str], raw: bytes) -> Outcome:
    try:
        return mail_move_handle(envelope_from=envelope_from, recipients=recipients, raw=raw)
    finally:
        # Replies are few: a fresh connection per message leaves nothing open in the worker thread to
        # go stale between messages (or to hold up a test database's removal).
        connections.close_all()


def gateway_controller(*, host: str, port: int, handler: GatewayHandler | None = None) -> Controller:
    """An aiosmtpd Controller serving replies on ``host``:``port``; ``start()`` runs it in a thread.

    aiosmtpd itself answers 552 to a message over MAIL_GATEWAY_MAX_BYTES (and advertises the limit in
    EHLO, so a client may learn it before sending).
    """
    if not _trusted_authserv_id():
        log.warning(
            "MAIL_GATEWAY_TRUSTED_AUTHSERV_ID is empty: the sender check of replies compares forgeable "
            "addresses only, and whoever holds a reply address can play that turn's move"
        )
    return Controller(
        handler or GatewayHandler(),
        hostname=host,
        port=port,
        server_hostname=replies.domain() or None,
        data_size_limit=_max_bytes(),
        enable_SMTPUTF8=True,
        timeout=60,
    )
