"""Garbage-collector settings for the web processes, applied once the site is loaded."""

from __future__ import annotations

import gc


def tune_gc(gen0_threshold: int) -> None:
    """Freeze what exists now and let the youngest generation grow to ``gen0_threshold`` objects.

    A move request allocates a few thousand container objects that all live until its answer is sent.
    With Python's default threshold of 700 the collector runs several times inside each request, while
    those objects are still alive, and frees next to nothing (about 22 µs a move request). What exists
    once Django is loaded (modules, classes, the URL resolver, settings) lives as long as the process:
    frozen, full collections no longer walk it, and when the application is loaded before the workers
    fork (gunicorn's ``--preload``) the workers' collections no longer write to, and so un-share, those
    pages. ``0`` leaves the collector as Python set it.
    """
    if gen0_threshold < 0:
        raise ValueError(f"GC_GEN0_THRESHOLD must be 0 or more, not {gen0_threshold}")
    if gen0_threshold == 0:
        return
    # Collect first, so that garbage left over from start-up is freed rather than frozen for good.
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(gen0_threshold, gen1, gen2)
