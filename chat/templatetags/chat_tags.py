from __future__ import annotations

from typing import Any

from django import template

from chat import selectors

register = template.Library()


@register.inclusion_tag("chat/_panel.html", takes_context=True)
def chat_panel(context: template.Context) -> dict[str, Any]:
    """The match's chat for the viewer: ``{% chat_panel %}`` on the match page (needs ``match``)."""
    request = context["request"]
    match = context["match"]
    mv = context.get("mv")
    access = selectors.chat_access(match=match, user=request.user, seats=mv.seats if mv else None)
    draft = request.session.pop("chat_draft", {}).get(str(match.pk), "") if access.can_post else ""
    return {
        "request": request,
        "user": request.user,
        "match": match,
        "access": access,
        "chat_messages": selectors.messages_for(match=match, access=access),
        "draft": draft,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("chat/_messages.html", takes_context=True)
def chat_messages(context: template.Context) -> dict[str, Any]:
    """The match's messages alone, as the viewer may read them (the match page's live poll); nothing for
    a viewer the chat keeps out."""
    request = context["request"]
    match = context["match"]
    mv = context.get("mv")
    access = selectors.chat_access(match=match, user=request.user, seats=mv.seats if mv else None)
    return {
        "request": request,
        "user": request.user,
        "match": match,
        "access": access,
        "chat_messages": selectors.messages_for(match=match, access=access),
        "csrf_token": context.get("csrf_token"),
    }
