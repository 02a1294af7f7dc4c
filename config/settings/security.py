"""Security: the secret key and hosts, people and their sign-in, cookies, secrets kept encrypted."""

from apps.core import env

SECRET_KEY = env.str("DJANGO_SECRET_KEY")
DEBUG = env.bool("DJANGO_DEBUG", False)
# Any host may reach the router; the workspace domain table decides what answers (unknown: 404).
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", ["*"])

# --- people -------------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:sign-in"
LOGIN_REDIRECT_URL = "settings:home"
LOGOUT_REDIRECT_URL = "accounts:sign-in"

# Personal access tokens (SPEC 5.2): fixed prefix, shown once, stored as a hash, 90 days.
ACCESS_TOKEN_PREFIX = "atp"  # noqa: S105  (a prefix, not a secret)
ACCESS_TOKEN_LIFETIME_DAYS = 90
ATRIUM_DEMO_PASSWORD = env.str("ATRIUM_DEMO_PASSWORD", "atrium-demo")

# --- sessions, cookies, headers -----------------------------------------------------------------

SESSION_COOKIE_NAME = "atrium_session"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_NAME = "atrium_csrf"
CSRF_FAILURE_VIEW = "apps.core.views.csrf_failure"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# --- secrets kept encrypted at rest (apps.core.encryption) --------------------------------------

# Fernet keys (urlsafe base64, 32 bytes) for secrets kept encrypted at rest; the first encrypts,
# all decrypt, so a new key is put first and the old one kept until everything is re-encrypted.
ATRIUM_ENCRYPTION_KEYS = env.list("ATRIUM_ENCRYPTION_KEYS", [])
