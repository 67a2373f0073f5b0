"""bench/balance.py: the settings it plays, the limits it marks and the Markdown it writes, on tiny runs."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_balance", ROOT / "bench" / "balance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


balance = _load()


def test_two_tiny_runs_write_a_table_per_game_and_player_count(tmp_path: Path) -> None:
    out = tmp_path / "balance.md"
    code = balance.main(
        [
            *("--slug", "wallgo", "--slug", "wildlings", "--players", "2", "--players", "3"),
            *("--games", "2", "--bot", "random", "--markdown", str(out)),
        ]
    )
    assert code == 0
    text = out.read_text()
    assert "--games 2 --bot random" in text
    # Wall Go at 2 and 3 players, Wildlings only at 3 (it is for 3 to 6).
    assert text.count("## Wall Go") == 1 and text.count("## Wildlings at the Wall") == 1
    assert text.count("### 2 players") == 1 and text.count("### 3 players") == 2
    wildlings = text.split("## Wildlings at the Wall")[1]
    assert "| seat 2 (green) |" in wildlings and "seat 3" not in wildlings
    assert "| moves a game |" in wildlings and "| rounds played |" in wildlings
    assert "| ended: every" in text.split("## Wildlings")[0]  # Wall Go: the view's end reason


def test_a_fixed_budget_bot_plays_the_same_game_twice() -> None:
    setting = balance.settings_for(["testdice"], [2], [])[0]  # dice, hidden hands and sealed bids
    first = balance.play_one((setting, "easy@8", "same", 1, None, "bid"))
    again = balance.play_one((setting, "easy@8", "same", 1, None, "bid"))
    assert first.finished and first.moves > 4
    assert (first.winners, first.scores, first.moves) == (again.winners, again.scores, again.moves)


def _result(setting, number, winners, stats=None):  # type: ignore[no-untyped-def]
    scores = [1.0 if s in winners else 0.0 for s in range(setting.players)]
    return balance.GameResult(setting, number, True, winners, scores, stats or {}, None, 10)


def test_a_seat_over_sixty_percent_of_a_two_seat_game_is_marked_in_bold() -> None:
    setting = balance.Setting("wallgo", 2)
    results = [_result(setting, n, [0] if n < 7 else [1], {"rounds": 5.0 + n}) for n in range(10)]
    summary = balance.summarise(setting, 10, results)
    text = balance.markdown([summary], command="c", bot="normal", games=10, seed="s", wall=1.0, workers=1)
    assert "| **seat 0 (orange)** | **70.0%** | 14.5 | 0.70 |" in text
    assert "| seat 1 (blue) | 30.0% | 14.5 | 0.30 |" in text
    assert "| rounds | 9.50 a game (least 5, most 14) |" in text
    # The overview at the top names the seats that win most and least, against the fair share.
    assert "| Wall Go, 2 | 10 | **seat 0 (orange) 70.0% ± 14.5** | seat 1 (blue) 30.0% ± 14.5 | 50% |" in text
    # Two seats level: the other one wins least.
    even = balance.summarise(setting, 2, [_result(setting, 0, [0]), _result(setting, 1, [1])])
    assert "| Wall Go, 2 | 2 | seat 0 (orange) 50.0% ± 35.4 | seat 1 (blue) 50.0% ± 35.4 | 50% |" in (
        balance.overview([even])
    )


def test_draws_are_shared_between_sides_and_sides_come_from_the_engines_teams() -> None:
    # The Wall's teams with four players: seats 0 and 2 against 1 and 3.
    setting = balance.Setting("thewall", 4)
    results = [_result(setting, 0, [0, 2]), _result(setting, 1, [0, 2]), _result(setting, 2, [0, 1])]
    summary = balance.summarise(setting, 3, results)
    assert [side.seats for side in summary.sides] == [[0, 2], [1, 3]]
    assert [side.score for side in summary.sides] == [2.5, 0.5]
    # Partners who win together both win; a draw between the sides halves it.
    assert [summary.rate(seat) for seat in range(4)] == pytest.approx([2.5 / 3, 0.5 / 3, 2 / 3, 0.0])
    text = balance.markdown([summary], command="c", bot="normal", games=3, seed="s", wall=1.0, workers=1)
    # The sides' names are the engine's (team_names).
    assert "| **side Watch and Mance** | **83.3%** |" in text and "| side Others | 16.7% |" in text
    assert (
        "| The Wall, 4 | 3 | **side Watch and Mance 83.3% ± 21.5** | side Others 16.7% ± 21.5 | 50% |" in text
    )


def test_options_run_every_combination_for_the_games_that_have_them() -> None:
    settings = balance.settings_for(
        ["wallgo", "stairways"], [2], ["layout=classic,maze", "pieces=recommended"]
    )
    assert [(s.slug, s.options) for s in settings] == [
        ("wallgo", ()),
        ("stairways", (("layout", "classic"), ("pieces", "recommended"))),
        ("stairways", (("layout", "maze"), ("pieces", "recommended"))),
    ]


def test_pool_takes_together_the_tables_that_differ_only_in_one_option() -> None:
    settings = balance.settings_for(
        ["stairways"], [3], ["layout=classic,maze", "pieces=first_game,recommended"]
    )
    wins = {"first_game": [0, 0, 1], "recommended": [2, 2, 0, 0]}
    summaries = [
        balance.summarise(
            s,
            4,
            [_result(s, n, [w], {"all_zero": 0.0}) for n, w in enumerate(wins[dict(s.options)["pieces"]])],
        )
        for s in settings
    ]
    shown = balance.with_pools(summaries, "pieces")
    # Each layout's two tables, then both together, in the order the settings came.
    assert [s.setting.options for s in shown] == [
        (("layout", "classic"), ("pieces", "first_game")),
        (("layout", "classic"), ("pieces", "recommended")),
        (("layout", "classic"), ("pieces", "first_game + recommended")),
        (("layout", "maze"), ("pieces", "first_game")),
        (("layout", "maze"), ("pieces", "recommended")),
        (("layout", "maze"), ("pieces", "first_game + recommended")),
    ]
    pooled = shown[2]
    assert (pooled.games, pooled.finished) == (8, 7)
    assert [pooled.rate(seat) for seat in range(3)] == pytest.approx([4 / 7, 1 / 7, 2 / 7])
    text = balance.markdown(
        shown, command="c", bot="normal", games=4, seed="s", wall=1.0, workers=1, record=Path("games.jsonl")
    )
    assert "the 14 games held took" in text  # both layouts' tables, each game counted once
    assert "### 3 players, layout classic, pieces first_game + recommended" in text
    assert "7 games, the tables of pieces first_game and recommended above taken together (of the 8" in text
    row = "| Walls and Stairways, 3, classic, first_game + recommended | 7 | seat 0 (orange) 57.1% ± 18.7 |"
    assert row in text
    # Tables without the option, or alone in their group, stay as they are.
    alone = balance.summarise(balance.Setting("wallgo", 2), 1, [])
    assert balance.with_pools([alone, summaries[0]], "pieces") == [alone, summaries[0]]


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--slug", "wallgo", "--option", "layout=maze"], "No game chosen has the option layout"),
        (["--slug", "stairways", "--option", "layout=castle"], "layout is one of classic, maze"),
        (["--slug", "wildlings", "--players", "2"], "for 3 to 6 players"),
        (["--slug", "wallgo", "--option", "layout"], "--option takes key=value"),
        (["--slug", "wallgo", "--bot", "random@3"], "--bot takes one of random, easy, normal, hard"),
        (["--slug", "wallgo", "--bot", "normal@0"], "not 'normal@0'"),
        (["--slug", "wallgo", "--bot", "expert"], "not 'expert'"),
        (["--slug", "wallgo", "--show", "1"], "--show plays one game of one setting; the arguments name 3"),
        (["--slug", "wallgo", "--tables-only"], "--tables-only and --forget work on the games of a --record"),
        (["--slug", "stairways", "--pool", "pieces"], "--pool takes an option that --option names"),
    ],
)
def test_bad_arguments_are_refused_with_the_reason(
    argv: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert balance.main(argv) == 2
    assert reason in capsys.readouterr().err


def test_a_record_keeps_each_game_and_the_next_run_plays_only_the_missing_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, grown, fresh = tmp_path / "games.jsonl", tmp_path / "grown.md", tmp_path / "fresh.md"
    common = ["--slug", "wallgo", "--players", "2", "--players", "3", "--bot", "random"]
    assert balance.main([*common, "--games", "2", "--record", str(record)]) == 0
    assert len(record.read_text().splitlines()) == 4
    # A stopped run may leave half a line: it is dropped, and that game is played again.
    lines = record.read_text().splitlines(keepends=True)
    record.write_text("".join(lines[:3]) + lines[3][:20])
    capsys.readouterr()
    assert balance.main([*common, "--games", "3", "--record", str(record), "--markdown", str(grown)]) == 0
    assert "3 games read from" in capsys.readouterr().out
    assert len(record.read_text().splitlines()) == 6
    assert balance.main([*common, "--games", "3", "--markdown", str(fresh)]) == 0
    # The tables of the grown record are those of one run of all the games.
    tables = [path.read_text().split("## Wall Go")[1] for path in (grown, fresh)]
    tables = [re.sub(r"; [\d.]+ s of play a game", "", table) for table in tables]
    assert tables[0] == tables[1] and "3 games; " in grown.read_text()
    assert "the 6 games held took" in grown.read_text()


def test_a_record_that_is_not_this_scripts_is_refused_with_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "games.jsonl"
    record.write_text('{"slug": "wallgo"}\n')
    assert balance.main(["--slug", "wallgo", "--games", "1", "--bot", "random", "--record", str(record)]) == 2
    assert "games.jsonl, line 1: not a game of this script" in capsys.readouterr().err
    assert record.read_text() == '{"slug": "wallgo"}\n'


def test_tables_only_plays_nothing_and_shows_how_many_games_are_missing(tmp_path: Path) -> None:
    record, out = tmp_path / "games.jsonl", tmp_path / "balance.md"
    common = ["--slug", "wallgo", "--players", "2", "--bot", "random", "--record", str(record)]
    assert balance.main([*common, "--games", "2"]) == 0
    assert balance.main([*common, "--games", "5", "--tables-only", "--markdown", str(out)]) == 0
    assert len(record.read_text().splitlines()) == 2
    text = out.read_text()
    assert "2 games (of the 5 asked for: the record fills up run by run)" in text
    # The heading shows the command that plays the missing games.
    assert "--games 5 --markdown" in text and "--tables-only" not in text


def test_forget_drops_one_games_record_so_that_it_is_played_again(tmp_path: Path) -> None:
    record, out = tmp_path / "games.jsonl", tmp_path / "balance.md"
    games = ["--games", "2", "--bot", "random", "--record", str(record)]
    assert balance.main(["--slug", "wallgo", "--slug", "thewall", "--players", "2", *games]) == 0
    assert sorted(json.loads(line)["slug"] for line in record.read_text().splitlines()) == [
        "thewall",
        "thewall",
        "wallgo",
        "wallgo",
    ]
    argv = ["--slug", "wallgo", "--players", "2", *games, "--forget", "thewall", "--tables-only"]
    assert balance.main([*argv, "--markdown", str(out)]) == 0
    assert [json.loads(line)["slug"] for line in record.read_text().splitlines()] == ["wallgo", "wallgo"]
    assert "--forget" not in out.read_text() and "--tables-only" not in out.read_text()


def test_show_plays_one_game_of_the_tables_move_by_move(capsys: pytest.CaptureFixture[str]) -> None:
    setting = balance.settings_for(["testdice"], [2], [])[0]
    played = balance.play_one((setting, "easy@8", "same", 3, None, "bid"))
    argv = ["--slug", "testdice", "--players", "2", "--bot", "easy@8", "--seed", "same", "--show", "3"]
    assert balance.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    # Every move by its seat, then what came of it; the game is the one the tables count.
    assert sum(line.startswith(("seat 0 (orange): ", "seat 1 (blue): ")) for line in out) == played.moves
    assert any(line.startswith("    ") for line in out)
    assert out[-1] == f"{setting.label}, game 3: outcome {played.scores}, {played.moves} moves"
