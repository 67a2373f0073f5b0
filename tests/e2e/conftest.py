from __future__ import annotations

import os
import shutil

import pytest

# Playwright's sync API runs an event loop in the test thread; the database calls the tests make
# there are ordinary blocking ones.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package.")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser):
    contexts = []

    def make():
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
