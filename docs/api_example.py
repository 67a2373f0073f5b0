"""Play a match against a computer opponent through the API, with plain httpx.

    WALLSITE_URL=http://127.0.0.1:8000 WALLSITE_TOKEN=<your key> python docs/api_example.py [game]

The key is made on your settings page. tests/api/test_api_example.py runs this file as it is.
"""

from __future__ import annotations

import os
import random
import sys
import time

import httpx


def send(api: httpx.Client, method: str, url: str, **kwargs) -> httpx.Response:
    """One call; waits out a 429 (Retry-After says how long), and stops on any other refusal."""
    while True:
        answer = api.request(method, url, **kwargs)
        if answer.status_code == 429:
            time.sleep(int(answer.headers.get("Retry-After", "60")))
        elif answer.status_code >= 400 and answer.status_code != 409:
            sys.exit(f"{method} {url}: {answer.status_code} {answer.json()['detail']}")
        else:
            return answer


def play(base_url: str, token: str, game: str = "wallgo") -> dict:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as api:
        body = {"game": game, "seat_count": 2, "bot_count": 1, "bot_level": "random"}
        match = send(api, "POST", "/api/matches/", json=body).json()
        url = f"/api/matches/{match['id']}/"
        print(f"Match {match['id']}: {match['game_title']}, {match['seats'][1]['player']} against you")
        while match["status"] == "active":
            legal = send(api, "GET", url + "legal-moves/").json()
            if legal["your_turn"]:
                choice = random.choice(legal["moves"])
                sent = {"move": choice["move"], "version": legal["version"]}
                # 409: the match moved on since we read it (a chance step was drawn, or the step
                # ended); nothing was played. Read it again and choose again.
                if send(api, "POST", url + "moves/", json=sent).status_code == 201:
                    print(choice["notation"])
            else:
                time.sleep(1)  # the computer is thinking; a worker plays its move
            match = send(api, "GET", url).json()
        print(match["result_text"] or match["status"])
        return match


if __name__ == "__main__":
    play(os.environ["WALLSITE_URL"], os.environ["WALLSITE_TOKEN"], *sys.argv[1:2])
