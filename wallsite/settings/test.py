"""Settings for the test suite: fast hashing, e-mail kept in memory, the database from DATABASE_URL."""

from __future__ import annotations

import os

from wallsite.settings.base import *  # noqa: F403

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Tasks run in the test process unless a test starts a real worker (tests/tasks/), which switches
# the app to the real Redis named by REDIS_URL or to an embedded one.
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
# Eager tasks need no broker: each commit sends its own e-mails at once (tests/tasks/ coalesces them).
NOTIFY_COALESCE = False
# Each test process has a cache of its own; tests of what is shared through Redis start their own.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, not shared memory, so threads (concurrent moves, the live server of the browser tests)
    # see one database and queue on its lock as they would in production.
    # One file per test run, so two runs in one checkout never share (or delete) each other's database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}  # noqa: F405
