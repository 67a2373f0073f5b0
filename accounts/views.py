from __future__ import annotations

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from accounts import services
from accounts.forms import SignupForm
from accounts.models import User
from games import selectors


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


def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username, is_active=True)
    matches = selectors.matches_for_user(user=player)
    own = request.user.is_authenticated and request.user.pk == player.pk
    return render(
        request, "accounts/profile.html", {"player": player, "matches": matches, "own_profile": own}
    )
