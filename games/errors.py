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


class InvalidMove(ServiceError):
    status = 400
