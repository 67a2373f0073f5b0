from __future__ import annotations

import pytest

from moderation.services import moderator_appoint


@pytest.fixture
def moderator(make_user):
    user = make_user("mod")
    moderator_appoint(user=user)
    return user


@pytest.fixture
def as_moderator(client, moderator):
    client.force_login(moderator)
    return client
