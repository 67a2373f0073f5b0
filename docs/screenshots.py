"""The README's screenshots: a match of every game under way, as the player to move sees it, on a 1280 x 800
desktop and on a 390 x 844 phone, saved as docs/screenshots/<game>-desktop.png and <game>-phone.png.

Run it by hand from the project's folder, with the development tools installed (`make install`) and
Debian's chromium (`make chromium`):

    .venv/bin/python docs/screenshots.py

It runs as a pytest module against a live server on a throwaway test database, like the browser tests
(tests/e2e/): each match is set up through the services with seeded dice and played some random legal
moves into the game, then opened in Chromium. The pictures are reduced to 256 colours (Pillow) so that
each stays small.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop

HERE = Path(__file__).resolve().parent
OUT = HERE / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
NAMES = ["annabelle", "benedikt", "caroline", "dominique"]
PASSWORD = "screenshot-password-9"
# Per game: players, random moves played before the picture, and the seed of those moves and of the
# match's dice (chosen for a position in the thick of it).
GAMES = {
    "wallgo": (2, 14, 4),
    "stairways": (2, 10, 4),
    "thewall": (2, 12, 4),
    "wildlings": (3, 10, 4),
    "greatwall": (2, 12, 4),
}
# Where the picture starts: just above the board, so that the sentence saying what to do shows too.
SCROLL_TO_BOARD = """() => {
  const tools = document.querySelector(".board-tools:not([hidden])") || document.getElementById("board");
  const above = document.querySelector(".match-head .status") || tools;
  window.scrollTo(0, Math.max(0, above.getBoundingClientRect().top + window.scrollY - 12));
}"""


@pytest.fixture(scope="module")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` installs Debian's chromium package.")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield browser
        browser.close()


def small_png(path: Path) -> None:
    """The screenshot in 256 colours: a third of the size or less, and the same to the eye for these
    pages (the octree keeps small areas of strong colour, such as a unit's red life, true)."""
    from PIL import Image

    with Image.open(path) as image:
        reduced = image.convert("RGB").quantize(
            colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
    reduced.save(path, optimize=True)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", list(GAMES))
def test_screenshot(game, live_server, browser, django_user_model, monkeypatch):
    from django.conf import settings
    from django.test import Client

    from games import services
    from games.models import Match
    from games.playouts import play_random_moves
    from games.services import creating

    seats, moves, seed = GAMES[game]
    people = [
        django_user_model.objects.create_user(username=name, email=f"{name}@example.com", password=PASSWORD)
        for name in NAMES[:seats]
    ]
    monkeypatch.setattr(creating, "rng_new", lambda: random.Random(seed))
    match = services.match_create(creator=people[0], game=game, seat_count=seats, name="A game under way")
    for user in people[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match = play_random_moves(match_id=match.pk, rng=random.Random(seed), moves=moves)
    assert match.status == Match.Status.ACTIVE, f"{game}: the match ended; pick another seed"
    actors = match.engine.actors(match.engine_state)
    assert actors, f"{game}: the match waits for a chance step; pick another number of moves"
    viewer = match.seats.get(position=min(actors)).user

    client = Client()
    client.force_login(viewer)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    OUT.mkdir(exist_ok=True)
    for size, viewport in SIZES.items():
        phone = size == "phone"
        context = browser.new_context(
            viewport=viewport, is_mobile=phone, has_touch=phone, device_scale_factor=1
        )
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page = context.new_page()
        page.goto(live_server.url + match.get_absolute_url())
        page.evaluate(SCROLL_TO_BOARD)
        path = OUT / f"{game}-{size}.png"
        page.screenshot(path=str(path))
        small_png(path)
        context.close()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider", "--rootdir", str(HERE.parent)]))
