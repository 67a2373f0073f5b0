"""What several browser tests do alike: sign up and log in through the site's own forms."""

from __future__ import annotations

PASSWORD = "browser-test-password-9"


def sign_up(page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_email", f"{name}@example.com")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form[data-testid=signup-form] button[type=submit]")
    page.wait_for_url(f"{base}/me/matches/")
