from __future__ import annotations

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    """Each test starts with an empty cache: the pages keep their parts there under keys naming the
    match's number and version, which a test database hands out again from one test to the next."""
    cache.clear()
