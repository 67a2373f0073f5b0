"""bench/bots.py: which table each matchup is played at and the target each figure is held to."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_bots", ROOT / "bench" / "bots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bots = _load()


def test_two_player_games_hold_normal_to_ninety_percent_and_each_level_to_sixty_five() -> None:
    against_random, hard, easy = bots.matchups_for("wallgo", None, list(bots.MATCHUPS))
    assert (against_random.players, against_random.target) == (2, 0.90)
    assert (hard.strong, hard.weak, hard.players, hard.target) == ("hard", "normal", 2, 0.65)
    assert (easy.strong, easy.weak, easy.target) == ("normal", "easy", 0.65)


def test_a_game_without_a_two_player_table_is_measured_against_its_fair_share() -> None:
    against_random, hard, _ = bots.matchups_for("wildlings", None, list(bots.MATCHUPS))
    assert against_random.players == hard.players == 3
    assert against_random.target == pytest.approx(2 / 3)
    assert hard.target == pytest.approx(1.3 / 3)
    assert "2 x fair 33%" in against_random.target_text


def test_more_seats_against_random_when_asked_and_the_game_allows_them() -> None:
    (four,) = bots.matchups_for("wallgo", 4, ["normal-random"])
    assert (four.players, four.target) == (4, 0.5)
    (levels,) = bots.matchups_for("wallgo", 4, ["hard-normal"])
    assert levels.players == 2


@pytest.mark.parametrize("argv", [["--slug", "chess"], ["--matchups", "normal-expert"], ["--games", "0"]])
def test_unknown_games_and_levels_are_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert bots.main(argv) == 2
    assert "Unknown games or matchups" in capsys.readouterr().err


def test_a_fixed_budget_side_is_its_level_search_with_that_many_playouts_and_no_time_limit() -> None:
    bot = bots.bench_bot("hard@1600")
    assert (bot.playouts, bot.seconds, bot.node_width) == (1600, None, bots.LEVELS["hard"].node_width)
    assert bot.kind == "hard@1600"  # its moves never count as the timed level's
    easy = bots.bench_bot("easy@60")
    assert (easy.playouts, easy.root_width) == (60, bots.LEVELS["easy"].root_width)
    assert bots.bench_bot("normal").seconds == bots.LEVELS["normal"].seconds
    with pytest.raises(ValueError, match="random@9"):
        bots.bench_bot("random@9")  # the random bot has no search to budget


@pytest.mark.parametrize("matchup", ["random@9-easy", "normal@0-easy", "normal@x-easy", "expert@5-easy"])
def test_a_fixed_budget_needs_a_searching_level_and_a_positive_count(
    matchup: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bots.main(["--matchups", matchup]) == 2
    assert matchup in capsys.readouterr().err


def test_budget_against_budget_plays_and_reports_without_timing_the_normal_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--include-test", "--slug", "testdice", "--matchups", "normal@40-normal@4", "--games", "2"]
    assert bots.main([*argv, "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "normal@40 against normal@4" in out
    assert "normal, seconds a move" not in out
    assert "(playouts a move, median: normal@4 4, normal@40 " in out
    # The stronger side took each seat once; its result there is 0 or 100% of 1 game (50% if drawn).
    one = r"(0|50|100)\.0% of 1"
    assert re.search(rf"\(normal@40 by its seat: seat 0 {one}, seat 1 {one}\)", out)
