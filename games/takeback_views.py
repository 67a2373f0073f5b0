"""The match page's takeback buttons: ask to take back one's last move, accept or refuse another
player's request, withdraw one's own. Plain forms; each redirects back to the match with a message."""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from games import services
from games.errors import NotFound, ServiceError
from games.models import Takeback


class AskForm(forms.Form):
    version = forms.IntegerField(min_value=0, max_value=2**31 - 1)


class AnswerForm(forms.Form):
    request = forms.IntegerField(min_value=1, max_value=2**63 - 1)
    answer = forms.ChoiceField(choices=[("accept", "Accept"), ("refuse", "Refuse")])


class WithdrawForm(forms.Form):
    request = forms.IntegerField(min_value=1, max_value=2**63 - 1)


STALE = "That form is out of date: look at the match again."


@require_POST
@login_required
def takeback_ask(request: HttpRequest, match_id: int) -> HttpResponse:
    form = AskForm(request.POST)
    version = form.cleaned_data["version"] if form.is_valid() else None
    if version is None:
        messages.error(request, STALE)
        return redirect("match-detail", match_id=match_id)

    def ask() -> str:
        takeback = services.takeback_ask(match_id=match_id, user=request.user, expected_version=version)
        if takeback.status == Takeback.Status.ACCEPTED:
            return "Your move was taken back."
        return "You asked to take back your last move. The other players can accept or refuse."

    return _run(request, match_id, ask)


@require_POST
@login_required
def takeback_answer(request: HttpRequest, match_id: int) -> HttpResponse:
    form = AnswerForm(request.POST)
    if not form.is_valid():
        messages.error(request, STALE)
        return redirect("match-detail", match_id=match_id)
    accept = form.cleaned_data["answer"] == "accept"

    def answer() -> str:
        takeback = services.takeback_answer(
            match_id=match_id, user=request.user, accept=accept, takeback_id=form.cleaned_data["request"]
        )
        if takeback.status == Takeback.Status.ACCEPTED:
            return "You accepted: the move was taken back."
        if takeback.status == Takeback.Status.REFUSED:
            return "You refused: the move stands."
        return "You accepted. The other players have still to answer."

    return _run(request, match_id, answer)


@require_POST
@login_required
def takeback_withdraw(request: HttpRequest, match_id: int) -> HttpResponse:
    form = WithdrawForm(request.POST)
    if not form.is_valid():
        messages.error(request, STALE)
        return redirect("match-detail", match_id=match_id)

    def withdraw() -> str:
        services.takeback_withdraw(
            match_id=match_id, user=request.user, takeback_id=form.cleaned_data["request"]
        )
        return "You withdrew your request."

    return _run(request, match_id, withdraw)


def _run(request: HttpRequest, match_id: int, action: Callable[[], str]) -> HttpResponse:
    try:
        messages.success(request, action())
    except NotFound:
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("match-detail", match_id=match_id)
