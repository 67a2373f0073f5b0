"""Thin views for moderators (every URL under /moderation/ answers 404 to anyone else) and the players'
report form (/reports/)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from chat.models import ChatMessage
from chat.selectors import chat_access
from games.errors import NotFound, ServiceError
from games.models import Match
from moderation import forms, permissions, selectors, services
from moderation.models import Report


def moderators_only(perm: str | None = None) -> Callable:
    """404 for everyone without the permission (``None``: any moderator's), logged in or not, so the
    moderation pages do not even show that they exist. It goes above ``require_GET``/``require_POST``:
    a 405 for the wrong method would give the page away too."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            allowed = (
                permissions.is_moderator(request.user)
                if perm is None
                else permissions.can(request.user, perm)
            )
            if not allowed:
                raise Http404("There is no such page.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorate


# --- the report queue ---------------------------------------------------------------------------------


@moderators_only(permissions.REPORTS)
@require_GET
def queue(request: HttpRequest) -> HttpResponse:
    status = request.GET.get("status", "unresolved")
    if status not in selectors.QUEUE_FILTERS:
        status = "unresolved"
    reason = request.GET.get("reason", "")
    mine = request.GET.get("mine") == "1"
    reports = selectors.reports_queue(status=status, reason=reason, mine_for=request.user if mine else None)
    page = Paginator(reports, 50).get_page(request.GET.get("page"))
    return render(
        request,
        "moderation/queue.html",
        {
            "page": page,
            "status": status,
            "reason": reason,
            "mine": mine,
            "statuses": [
                ("unresolved", "To do"),
                ("open", "Nobody on it"),
                ("assigned", "Being handled"),
                ("closed", "Closed"),
                ("all", "All"),
            ],
            "reasons": Report.Reason.choices,
            "resolve_form": forms.ResolveForm(),
        },
    )


@moderators_only(permissions.REPORTS)
@require_POST
def report_assign(request: HttpRequest, report_id: int) -> HttpResponse:
    _run(request, lambda: services.report_assign(moderator=request.user, report_id=report_id), "It is yours.")
    return _back(request, reverse("moderation-queue"))


@moderators_only(permissions.REPORTS)
@require_POST
def report_resolve(request: HttpRequest, report_id: int) -> HttpResponse:
    form = forms.ResolveForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
    else:
        data = form.cleaned_data
        _run(
            request,
            lambda: services.report_resolve(
                moderator=request.user,
                report_id=report_id,
                note=data["note"],
                dismiss=data["outcome"] == "dismiss",
            ),
            f"Report #{report_id} is closed.",
        )
    return _back(request, reverse("moderation-queue"))


@moderators_only()
@require_GET
def actions(request: HttpRequest) -> HttpResponse:
    match_id = request.GET.get("match") or None
    user = None
    if request.GET.get("user"):
        user = get_object_or_404(get_user_model(), username=request.GET["user"])
    try:
        match_id = int(match_id) if match_id is not None else None
    except ValueError:
        raise Http404("There is no such match.") from None
    page = Paginator(selectors.actions_recent(match_id=match_id, user=user), 100).get_page(
        request.GET.get("page")
    )
    return render(request, "moderation/actions.html", {"page": page, "match_id": match_id, "who": user})


# --- matches ------------------------------------------------------------------------------------------


def _pause(request, match, form):
    return services.match_pause(moderator=request.user, match_id=match.pk, **_common(form))


def _resume(request, match, form):
    return services.match_resume(moderator=request.user, match_id=match.pk, **_common(form))


def _extend(request, match, form):
    data = form.cleaned_data
    return services.turn_extend(
        moderator=request.user, match_id=match.pk, position=data["seat"], hours=data["hours"], **_common(form)
    )


def _hand_over(request, match, form):
    data = form.cleaned_data
    return services.seat_hand_over(
        moderator=request.user,
        match_id=match.pk,
        position=data["seat"],
        username=data["username"],
        bot=data["bot"],
        **_common(form),
    )


def _remove(request, match, form):
    position = form.cleaned_data["seat"]
    return services.seat_remove(moderator=request.user, match_id=match.pk, position=position, **_common(form))


def _rollback(request, match, form):
    return services.move_rollback(moderator=request.user, match_id=match.pk, **_common(form))


def _adjudicate(request, match, form):
    ranks = form.ranks()
    return services.match_adjudicate(moderator=request.user, match_id=match.pk, ranks=ranks, **_common(form))


def _end(request, match, form):
    status = form.cleaned_data["status"]
    return services.match_end(moderator=request.user, match_id=match.pk, status=status, **_common(form))


def _common(form) -> dict:
    return {"reason": form.cleaned_data["reason"], "report_id": form.cleaned_data.get("report")}


# action name -> (form class, whether the form needs the match, service call)
MATCH_ACTIONS = {
    "pause": (forms.ReasonForm, False, _pause),
    "resume": (forms.ReasonForm, False, _resume),
    "extend": (forms.ExtendForm, True, _extend),
    "hand-over": (forms.HandOverForm, True, _hand_over),
    "remove": (forms.SeatForm, True, _remove),
    "rollback": (forms.ReasonForm, False, _rollback),
    "adjudicate": (forms.AdjudicateForm, True, _adjudicate),
    "end": (forms.EndForm, False, _end),
}


@moderators_only(permissions.MATCHES)
@require_POST
def match_action(request: HttpRequest, match_id: int, action: str) -> HttpResponse:
    if action not in MATCH_ACTIONS:
        raise Http404("There is no such action.")
    match = get_object_or_404(Match, pk=match_id)
    form_class, needs_match, call = MATCH_ACTIONS[action]
    form = form_class(request.POST, match=match) if needs_match else form_class(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
    else:
        try:
            done = call(request, match, form)
        except NotFound:
            raise Http404("There is no such match.") from None
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"Done: {done.summary}")
    return redirect(reverse("match-detail", args=[match_id]) + "#moderation")


@moderators_only(permissions.HIDDEN_STATE)
@require_POST
def match_secrets(request: HttpRequest, match_id: int) -> HttpResponse:
    """Every seat's hidden information, shown once per request with a reason: the page is never a
    link to share, and each look is in the record and the match log."""
    match = get_object_or_404(Match, pk=match_id)
    form = forms.SecretsForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return redirect(reverse("match-detail", args=[match_id]) + "#moderation")
    try:
        action, secrets = services.match_secrets_view(
            moderator=request.user, match_id=match.pk, **_common(form)
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect(reverse("match-detail", args=[match_id]) + "#moderation")
    response = render(
        request, "moderation/secrets.html", {"match": match, "action": action, "secrets": secrets}
    )
    response["Cache-Control"] = "no-store"
    return response


# --- chat ---------------------------------------------------------------------------------------------


@moderators_only(permissions.CHAT)
@require_POST
def message_hide(request: HttpRequest, message_id: int) -> HttpResponse:
    message = get_object_or_404(ChatMessage, pk=message_id)
    form = forms.LiftForm(request.POST)  # a reason alone
    if not form.is_valid():
        _form_errors(request, form)
    else:
        _run(
            request,
            lambda: services.message_hide(
                moderator=request.user, message_id=message.pk, reason=form.cleaned_data["reason"]
            ),
            "The message is hidden.",
        )
    return redirect(reverse("match-detail", args=[message.match_id]) + "#chat")


# --- users --------------------------------------------------------------------------------------------


@moderators_only(permissions.USERS)
@require_GET
def user_detail(request: HttpRequest, username: str) -> HttpResponse:
    return _user_page(request, username, forms.SuspendForm())


def _user_page(
    request: HttpRequest, username: str, form: forms.SuspendForm, status: int = 200
) -> HttpResponse:
    player = get_object_or_404(get_user_model(), username=username)
    return render(
        request,
        "moderation/user.html",
        {
            "player": player,
            "form": form,
            "suspensions": player.suspensions.select_related("moderator", "lifted_by"),
            "in_force": selectors.suspension_in_force(user=player),
            "reports": Report.objects.filter(reported=player).select_related("reporter", "match")[:50],
            "actions": selectors.actions_recent(user=player)[:50],
            "lift_form": forms.LiftForm(),
        },
        status=status,
    )


@moderators_only(permissions.USERS)
@require_POST
def user_suspend(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(get_user_model(), username=username)
    form = forms.SuspendForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.user_suspend(
                moderator=request.user,
                user_id=player.pk,
                kind=data["kind"],
                duration=form.duration(),
                reason=data["reason"],
            )
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, f"{player.username} is kept out.")
            return redirect("moderation-user", username=player.username)
    return _user_page(request, username, form, status=400)


@moderators_only(permissions.USERS)
@require_POST
def suspension_lift(request: HttpRequest, suspension_id: int) -> HttpResponse:
    form = forms.LiftForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
    else:
        _run(
            request,
            lambda: services.suspension_lift(
                moderator=request.user, suspension_id=suspension_id, reason=form.cleaned_data["reason"]
            ),
            "The suspension is lifted.",
        )
    return _back(request, reverse("moderation-queue"))


# --- players' reports ---------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def report_create(request: HttpRequest) -> HttpResponse:
    """The report form: from the match page (``match``) or from a chat message (``message``)."""
    source = request.POST if request.method == "POST" else request.GET
    message = None
    match = None
    if source.get("message"):
        message = _readable_message(request, source.get("message"))
        match = message.match
        players = [(message.author_id, message.author.username)]
    elif source.get("match"):
        try:
            match = get_object_or_404(Match, pk=int(source.get("match")))
        except ValueError:
            raise Http404("There is no such match.") from None
        players = [
            (seat.user_id, seat.user.username)
            for seat in match.seats.select_related("user")
            if seat.user_id and seat.user_id != request.user.pk
        ]
    else:
        raise Http404("Report a player from the match page or from a chat message.")
    form = forms.ReportForm(request.POST or None, players=players, initial={"reported": source.get("user")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.report_create(
                reporter=request.user,
                reported_id=data["reported"],
                match_id=match.pk if match and not message else None,
                message_id=message.pk if message else None,
                reason=data["reason"],
                details=data["details"],
            )
        except NotFound:
            raise Http404("There is no such match.") from None
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Thank you: your report is in the moderators' queue.")
            return redirect(match) if match else redirect("lobby")
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "moderation/report_form.html",
        {"form": form, "match": match, "message": message},
        status=status,
    )


def _readable_message(request: HttpRequest, raw: str) -> ChatMessage:
    try:
        message = ChatMessage.objects.select_related("match", "author").filter(pk=int(raw)).first()
    except ValueError:
        message = None
    if message is None or message.hidden or not chat_access(match=message.match, user=request.user).can_read:
        raise Http404("There is no such message.")
    return message


# --- helpers ------------------------------------------------------------------------------------------


def _run(request: HttpRequest, action: Callable, success: str) -> bool:
    try:
        action()
    except NotFound as exc:
        raise Http404(exc.message) from None
    except ServiceError as exc:
        messages.error(request, exc.message)
        return False
    messages.success(request, success)
    return True


def _form_errors(request: HttpRequest, form) -> None:
    for field, errors in form.errors.items():
        label = (
            "" if field == "__all__" else (form.fields[field].label or field.replace("_", " ").capitalize())
        )
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else error)


def _back(request: HttpRequest, default: str) -> HttpResponse:
    """Back to the moderation page the form was on (only an address on this site)."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect(target)
    return redirect(default)
