"""The README's API example, run as it is against a live server: it logs in with a key, creates a match
against a computer opponent and plays it to the end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

from games.models import Match

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "api_example.py"

pytestmark = pytest.mark.backend_neutral


def test_the_readme_shows_the_example_as_it_is():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    code = SCRIPT.read_text()
    # The script without its docstring, which the README says in its own words.
    assert code.split('"""', 2)[2].lstrip() in blocks


@pytest.mark.django_db(transaction=True)
def test_the_api_example_plays_a_match_against_a_computer_to_the_end(live_server, make_user):
    user = make_user("dev")
    key = Token.objects.create(user=user).key
    env = {**os.environ, "WALLSITE_URL": live_server.url, "WALLSITE_TOKEN": key}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "wallgo"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    match = Match.objects.get(created_by=user)
    assert match.status == Match.Status.FINISHED
    lines = done.stdout.splitlines()
    assert lines[0] == f"Match {match.pk}: Wall Go, Computer (random) against you"
    assert lines[-1] == match.result_text
    # Every move the script printed is one of the player's in the log, in order.
    mine = list(match.moves.filter(seat__user=user).order_by("seq").values_list("notation", flat=True))
    assert lines[1:-1] == mine
