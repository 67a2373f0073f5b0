"""Thin views: the chat form on the match page posts here and comes back to the page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from chat import services
from games.errors import NotFound, ServiceError


@require_POST
@login_required
def message_post(request: HttpRequest, match_id: int) -> HttpResponse:
    # The match page's script sends the form without leaving the page (a move being chosen stays) and
    # asks for JSON: 201, or the refusal's reason with its status.
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        services.message_post(match_id=match_id, user=request.user, text=request.POST.get("text", ""))
    except NotFound:
        if wants_json:
            return JsonResponse({"detail": "There is no such match."}, status=404)
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        if wants_json:
            return JsonResponse({"detail": exc.message}, status=exc.status)
        messages.error(request, exc.message)
        # What they wrote comes back in the box, so a refused message is not lost.
        request.session["chat_draft"] = {str(match_id): request.POST.get("text", "")[:2000]}
    else:
        if wants_json:
            return JsonResponse({"detail": "Sent."}, status=201)
    return redirect(reverse("match-detail", args=[match_id]) + "#chat")


@require_POST
@login_required
def spectators_read(request: HttpRequest, match_id: int) -> HttpResponse:
    # The form sends 1 or 0; anything else is refused rather than read as "no".
    choice = request.POST.get("allowed", "")
    if choice not in ("0", "1"):
        messages.error(request, "Choose whether spectators may read the chat: send allowed=1 or allowed=0.")
        return redirect(reverse("match-detail", args=[match_id]) + "#chat")
    allowed = choice == "1"
    try:
        services.spectators_read_set(match_id=match_id, user=request.user, allowed=allowed)
    except NotFound:
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request, "Spectators may read the chat." if allowed else "Only the players read the chat."
        )
    return redirect(reverse("match-detail", args=[match_id]) + "#chat")
