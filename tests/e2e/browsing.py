"""What several browser tests do alike: sign up through the site's own forms, or open a page already
logged in."""

from __future__ import annotations

from django.conf import settings
from django.test import Client

PASSWORD = "browser-test-password-9"


def sign_up(page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_email", f"{name}@example.com")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form[data-testid=signup-form] button[type=submit]")
    page.wait_for_url(f"{base}/me/matches/")


def open_page(browser, base: str, viewport: dict, user=None):
    """A fresh browser context (a phone's when the viewport is narrow), logged in as ``user`` through a
    session made on the server, as the log-in form would make it, or anonymous; and a page in it."""
    phone = viewport["width"] < 600
    context = browser.new_context(
        viewport=viewport, is_mobile=phone, has_touch=phone, device_scale_factor=2 if phone else 1
    )
    context.set_default_timeout(15_000)
    if user is not None:
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])
    return context, context.new_page()
