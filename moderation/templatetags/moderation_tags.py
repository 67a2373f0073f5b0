"""The moderation pieces of the match page and the header: ``{% load moderation_tags %}``."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html

from games.models import Match
from moderation import forms, permissions, selectors, services
from moderation.models import Report

register = template.Library()


@register.inclusion_tag("moderation/_notice.html", takes_context=True)
def moderation_notice(context: template.Context) -> dict[str, Any]:
    """Everyone sees that a moderator has paused the match."""
    return {"match": context["match"]}


@register.inclusion_tag("moderation/_report_button.html", takes_context=True)
def report_button(context: template.Context) -> dict[str, Any]:
    """The report form for a logged-in viewer, listing the match's other players."""
    request, match = context["request"], context["match"]
    players = []
    if request.user.is_authenticated:
        mv = context.get("mv")
        seats = mv.seats if mv else match.seats.select_related("user")
        players = [seat.user for seat in seats if seat.user_id and seat.user_id != request.user.pk]
    return {
        "match": match,
        "players": players,
        "reasons": Report.Reason.choices,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("moderation/_panel.html", takes_context=True)
def moderation_panel(context: template.Context) -> dict[str, Any]:
    """The moderator's tools on the match page; nothing at all for anyone else."""
    request, match = context["request"], context["match"]
    user = request.user
    if not permissions.is_moderator(user):
        return {"show": False}
    report = request.GET.get("report", "")
    initial = {"report": report} if report.isdigit() else {}

    def form(name: str, form_class, **kwargs):
        return form_class(auto_id=f"id_{name}_%s", initial=initial, **kwargs)

    in_play = match.status == Match.Status.ACTIVE
    # A moderator who plays or played here gets no tools, only the reason: the services refuse anyway.
    held = services.seat_held(user=user, match_id=match.pk)
    return {
        "show": True,
        "match": match,
        "csrf_token": context.get("csrf_token"),
        "seat_held": services.SEAT_HELD if held else "",
        "can_matches": not held and permissions.can(user, permissions.MATCHES),
        "can_secrets": not held
        and permissions.can(user, permissions.HIDDEN_STATE)
        and match.engine_state is not None,
        "in_play": in_play,
        "pause_form": form("pause", forms.ReasonForm),
        "extend_form": form("extend", forms.ExtendForm, match=match) if in_play else None,
        "hand_form": form("hand", forms.HandOverForm, match=match) if in_play else None,
        "remove_form": form("remove", forms.SeatForm, match=match) if in_play else None,
        "rollback_form": form("rollback", forms.ReasonForm),
        "adjudicate_form": form("adjudicate", forms.AdjudicateForm, match=match),
        "end_form": form("end", forms.EndForm),
        "secrets_form": form("secrets", forms.SecretsForm),
        "actions": selectors.actions_recent(match_id=match.pk)[:20],
        "reports": Report.objects.filter(match=match, status__in=Report.UNRESOLVED).select_related(
            "reporter", "reported"
        ),
    }


@register.simple_tag(takes_context=True)
def moderation_link(context: template.Context) -> str:
    """The header's link to the report queue, for moderators, with the count of reports to do."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if not permissions.is_moderator(user):
        return ""
    url = (
        reverse("moderation-queue")
        if permissions.can(user, permissions.REPORTS)
        else reverse("moderation-actions")
    )
    count = selectors.unresolved_report_count()
    if count:
        return format_html(
            '<a href="{}" data-testid="moderation-link">Moderation <span class="badge" '
            'title="Reports waiting">{}</span></a>',
            url,
            count,
        )
    return format_html('<a href="{}" data-testid="moderation-link">Moderation</a>', url)
