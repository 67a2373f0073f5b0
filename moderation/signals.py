"""Telling a suspended user why they cannot log in."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver

from moderation import selectors, services


@receiver(user_login_failed)
def explain_suspension(sender, credentials: dict, request=None, **kwargs) -> None:
    """The login form refuses an inactive account like a wrong password. When the password was right
    and a suspension is why, the page says so, with its reason and end; nobody else learns it."""
    if request is None or request.method != "POST":
        return
    User = get_user_model()
    username = credentials.get(User.USERNAME_FIELD) or credentials.get("username")
    password = request.POST.get("password", "")
    if not username or not password:
        return
    user = User.objects.filter(**{User.USERNAME_FIELD: username}, is_active=False).first()
    if user is None or not user.check_password(password):
        return
    services.suspensions_expire(user_id=user.pk)
    suspension = selectors.suspension_in_force(user=user)
    if suspension is None:
        user.refresh_from_db(fields=["is_active"])
        if user.is_active:
            messages.info(request, "Your suspension is over. Log in again.")
        return
    messages.error(request, selectors.suspension_text(suspension))
