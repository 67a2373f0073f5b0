"""Errors a service raises for a person's input; each carries the sentence to show and an HTTP status."""

from __future__ import annotations


class ServiceError(Exception):
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(ServiceError):
    status = 404


class Forbidden(ServiceError):
    status = 403


class Conflict(ServiceError):
    """The match changed under the request: a stale page, a repeated submission, a full table."""

    status = 409


class RematchExists(Conflict):
    """A match has one rematch; ``rematch_id`` is the one already on offer."""

    def __init__(self, message: str, *, rematch_id: int) -> None:
        super().__init__(message)
        self.rematch_id = rematch_id


class InvalidMove(ServiceError):
    status = 400


class LimitReached(ServiceError):
    """An account is at one of its caps (games/services/creating.py). With ``retry_after`` (seconds)
    the cap lifts by itself: 429, and the API sends Retry-After. Without it only the person can lift it
    (by finishing something): 403, so that a program does not retry in a loop."""

    def __init__(self, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = 403 if retry_after is None else 429
