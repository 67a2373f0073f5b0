"""Production: every secret and host comes from the environment; HTTPS everywhere."""

from __future__ import annotations

from wallsite.env import env_bool, env_int, env_list, env_str
from wallsite.settings.base import *  # noqa: F403

DEBUG = False
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    raise RuntimeError("SECRET_KEY must be set in production.")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Behind the README's load balancer by default, as SECURE_PROXY_SSL_HEADER assumes: the log-in lock-out
# counts each client's own address, from X-Forwarded-For, not the balancer's, which every client shares.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 1)
AXES_IPWARE_META_PRECEDENCE_ORDER, AXES_IPWARE_PROXY_COUNT = ipware_sources(TRUSTED_PROXY_COUNT)  # noqa: F405

EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20)

# Sessions kept between requests (checked before reuse), or psycopg's pool when DATABASE_POOL_SIZE is set
# (the README's "Running it for real" says when each fits, and how PgBouncer does).
DATABASES = {
    "default": database_settings(  # noqa: F405
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),  # noqa: F405
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        pool_size=env_int("DATABASE_POOL_SIZE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    options = DATABASES["default"].setdefault("OPTIONS", {})
    # A database that silently drops packets must fail a request in seconds, not hang it for minutes.
    options["connect_timeout"] = env_int("DATABASE_CONNECT_TIMEOUT", 5)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
