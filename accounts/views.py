from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import selectors as profile_selectors
from accounts import services
from accounts.forms import PreferencesForm, SignupForm
from accounts.models import User
from accounts.unsubscribe import unsubscribe_user
from games.api import tokens as api_tokens
from games.errors import ServiceError
from games.timefmt import zone_for


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("my-matches")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.user_create(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        target = request.POST.get("next", "")
        if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
            return redirect(target)
        return redirect("my-matches")
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "registration/signup.html",
        {"form": form, "next": request.GET.get("next", "")},
        status=status,
    )


@require_GET
def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username, is_active=True)
    return render(
        request,
        "accounts/profile.html",
        profile_selectors.profile_context(player=player, viewer=request.user),
    )


@require_http_methods(["GET", "POST"])
@login_required
def account_settings(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = PreferencesForm.for_user(user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.user_update_preferences(
                user=user,
                time_zone=data["time_zone"],
                notify=data["notify"],
                reminder_hours=data["reminder_hours"],
                digest_hour=data["digest_hour"],
                on_vacation=data["on_vacation"],
            )
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Your settings are saved.")
            return redirect("account-settings")
    status = 400 if request.method == "POST" else 200
    return _settings_page(request, form, status=status)


def _settings_page(
    request: HttpRequest, form: PreferencesForm, *, status: int = 200, **extra
) -> HttpResponse:
    user = request.user
    return render(
        request,
        "accounts/settings.html",
        {
            "form": form,
            "calendar_url": calendar_url(user=user),
            "vacation_days_left": vacation_days_left(user=user),
            "api_token": api_tokens.api_token_get(user=user),
            **extra,
        },
        status=status,
    )


@require_POST
@login_required
def api_token_create(request: HttpRequest) -> HttpResponse:
    """A new API key, replacing any other. The page shows it in this answer only: it is never shown
    again, so no redirect (which would need it stored somewhere to show it)."""
    token = api_tokens.api_token_create(user=request.user)
    response = _settings_page(request, PreferencesForm.for_user(request.user), new_api_key=token.key)
    # The key is in this page: keep it out of caches and the browser's back-forward history.
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@login_required
def api_token_revoke(request: HttpRequest) -> HttpResponse:
    if api_tokens.api_token_revoke(user=request.user):
        messages.success(request, "Your API token is revoked; programs using it can no longer sign in.")
    else:
        messages.info(request, "You had no API token.")
    return redirect("account-settings")


@require_POST
@login_required
def calendar_token_reset(request: HttpRequest) -> HttpResponse:
    services.user_calendar_token_reset(user=request.user)
    messages.success(request, "Your calendar has a new secret address; the old one no longer works.")
    return redirect("account-settings")


# The signed token is the proof, and mail clients send the RFC 8058 one-click POST without a CSRF
# token. Only a POST changes anything, because mail scanners fetch every link in a message.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    user = unsubscribe_user(token=token)
    if user is None:
        return render(request, "accounts/unsubscribe_invalid.html", status=400)
    if request.method == "POST":
        services.user_unsubscribe(user=user)
        return render(request, "accounts/unsubscribe.html", {"player": user, "done": True})
    return render(request, "accounts/unsubscribe.html", {"player": user, "done": False})


def calendar_url(*, user: User) -> str:
    return settings.SITE_URL.rstrip("/") + reverse("calendar-feed", args=[user.calendar_token])


def vacation_days_left(*, user: User) -> int:
    # The allowance is refilled when a day is next spent in a new year; show the refilled amount now.
    this_year = timezone.localdate(timezone=zone_for(user.time_zone)).year
    if user.vacation_year != this_year:
        return getattr(settings, "VACATION_DAYS_PER_YEAR", user.vacation_days_left)
    return user.vacation_days_left
