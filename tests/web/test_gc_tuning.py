"""The web processes' garbage-collector settings (wallsite/gc_tuning.py), restored after each test."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from wallsite.gc_tuning import tune_gc


@pytest.fixture
def gc_state() -> Iterator[tuple[int, int, int]]:
    """The collector's thresholds before the test; afterwards they are back and nothing stays frozen."""
    thresholds = gc.get_threshold()
    frozen_before = gc.get_freeze_count()
    yield thresholds
    if not frozen_before:
        gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_tuning_freezes_the_loaded_objects_and_raises_the_youngest_threshold(gc_state):
    tune_gc(20_000)
    assert gc.get_threshold() == (20_000, gc_state[1], gc_state[2])
    assert gc.get_freeze_count() > 0


def test_zero_leaves_the_collector_alone(gc_state):
    frozen = gc.get_freeze_count()
    tune_gc(0)
    assert gc.get_threshold() == gc_state
    assert gc.get_freeze_count() == frozen


def test_a_negative_threshold_is_refused(gc_state):
    with pytest.raises(ValueError, match="GC_GEN0_THRESHOLD"):
        tune_gc(-1)
    assert gc.get_threshold() == gc_state


@pytest.mark.parametrize(("value", "expected"), [("12345", 12345), ("0", None)])
def test_the_wsgi_application_tunes_by_the_environment(value, expected):
    """In a process of its own, as gunicorn loads it, so this process's collector is untouched."""
    script = (
        "import gc; before = gc.get_threshold()[0]; import wallsite.wsgi; "
        "print(before, gc.get_threshold()[0], gc.get_freeze_count())"
    )
    env = {**os.environ, "GC_GEN0_THRESHOLD": value}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    before, after, frozen = (int(word) for word in out[-3:])
    if expected is None:
        assert after == before and frozen == 0
    else:
        assert after == expected and frozen > 0
