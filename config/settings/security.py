"""Security: the secret key and hosts, people and their sign-in, cookies, secrets kept encrypted."""

from datetime import timedelta

from csp.constants import NONE, SELF, UNSAFE_INLINE

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
# Argon2id first, as Django's documentation recommends: about a quarter of PBKDF2's 1,000,000
# iterations on the same CPU, and memory-hard. The others still check the hashes they made, and a
# sign-in rehashes them with the first (check_password's upgrade).
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
LOGIN_URL = "accounts:sign-in"
LOGIN_REDIRECT_URL = "settings:home"
LOGOUT_REDIRECT_URL = "accounts:sign-in"

# Personal access tokens (SPEC 5.2): fixed prefix, shown once, stored as a hash, 90 days.
ACCESS_TOKEN_PREFIX = "atp"  # noqa: S105  (a prefix, not a secret)
ACCESS_TOKEN_LIFETIME_DAYS = 90
ATRIUM_DEMO_PASSWORD = env.str("ATRIUM_DEMO_PASSWORD", "atrium-demo")

# --- password guessing (django-axes; apps.accounts.throttle) ------------------------------------

# Every password sign-in (a workspace's sign-in page, the one /oauth/authorize sends people to, and
# the operators' admin) goes through django.contrib.auth.authenticate: axes' backend comes first
# and refuses an e-mail address locked out from the client's address, even with the right password.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Then the ceiling on guesses at one account from any number of addresses (below).
    "apps.accounts.throttle.GuessesBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failures are rows in the schema of the site signed in to (axes is a shared and a tenant app):
# every web process sees them, and a workspace's lockouts never reach another workspace or the
# admin. The access log of successful sign-ins is not kept (last_login says enough).
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_DISABLE_ACCESS_LOG = True
# Locked: this e-mail address from this client address. Someone else signing in from the same
# address (an office behind one NAT) is not refused, and a stranger elsewhere cannot lock a person
# out of their own workspace by typing wrong passwords for them.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = env.int("ATRIUM_ACCOUNTS_SIGN_IN_FAILURE_LIMIT", 5, min=1)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("ATRIUM_ACCOUNTS_SIGN_IN_LOCKOUT_MINUTES", 15, min=1))
# Tries while locked out are refused without pushing the end of the lockout further away.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
# Both sign-in forms post the address as "username"; it is compared as the user model compares it.
AXES_USERNAME_FORM_FIELD = "username"
AXES_USERNAME_CALLABLE = "apps.accounts.throttle.username_of"
AXES_LOCKOUT_CALLABLE = "apps.accounts.throttle.locked_out"
# Axes logs every failure and keeps what the failed tries posted: neither holds these
# (CONVENTIONS.md: no personal data or secret in a log line).
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "user_agent", "csrfmiddlewaretoken"]
# A try the ceiling below refused checked no password: not a failure of the pair either.
AXES_WHITELIST_CALLABLE = "apps.accounts.throttle.not_counted_by_axes"

# The pair above lets nobody lock a person out from elsewhere, and lets someone with many addresses
# guess one account without end. So, per e-mail address of a workspace, from every address, within
# a window that starts at its first wrong password: past SLOW_AFTER wrong passwords one try at a
# time SPACING seconds apart; at CEILING password sign-in stops (until a window passes with no
# try) and the owner is e-mailed a link that signs them in (apps.accounts.throttle).
ATRIUM_ACCOUNTS_GUESSES_WINDOW_MINUTES = env.int("ATRIUM_ACCOUNTS_GUESSES_WINDOW_MINUTES", 60, min=1)
ATRIUM_ACCOUNTS_GUESSES_SLOW_AFTER = env.int("ATRIUM_ACCOUNTS_GUESSES_SLOW_AFTER", 10, min=1)
ATRIUM_ACCOUNTS_GUESSES_SPACING_SECONDS = env.int("ATRIUM_ACCOUNTS_GUESSES_SPACING_SECONDS", 10, min=1)
ATRIUM_ACCOUNTS_GUESSES_CEILING = env.int("ATRIUM_ACCOUNTS_GUESSES_CEILING", 30, min=1)

# --- the client behind a reverse proxy (apps.core.proxies) ----------------------------------------

# The reverse proxies in front of the web processes (addresses or CIDR networks; deploy/ sets the
# TLS proxy's): only a request from one of them is believed when its X-Forwarded-For names the
# client (the sign-in throttle counts by that address) and its X-Forwarded-Proto the scheme.
# Anyone else is the socket's address, and their forwarding headers are dropped. Empty: nobody.
ATRIUM_TRUSTED_PROXIES = env.networks("ATRIUM_TRUSTED_PROXIES", [])

# --- links by e-mail (apps.accounts: "Forgot your password?", and sign-in while it is paused) -------

# How long an e-mailed link works, to set a new password or to sign in (Django's token generator
# reads this); it works once in any case.
PASSWORD_RESET_TIMEOUT = 60 * env.int("ATRIUM_ACCOUNTS_PASSWORD_RESET_MINUTES", 120, min=1)
# How many days the link of an invitation (apps.accounts.services.user_invite) works; once in any case.
ATRIUM_ACCOUNTS_INVITATION_DAYS = env.int("ATRIUM_ACCOUNTS_INVITATION_DAYS", 7, min=1)
# The two forms together send at most this many links to one address, and answer at most this
# many requests from one client address, per window (apps.accounts.throttle).
ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_ADDRESS = env.int("ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_ADDRESS", 3, min=1)
ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_CLIENT = env.int("ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_CLIENT", 10, min=1)
ATRIUM_ACCOUNTS_PASSWORD_RESET_WINDOW_SECONDS = 3600

# --- sessions, cookies, headers -----------------------------------------------------------------

SESSION_COOKIE_NAME = "atrium_session"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_NAME = "atrium_csrf"
CSRF_FAILURE_VIEW = "apps.core.views.csrf_failure"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Content-Security-Policy on every response (django-csp's middleware): the page's own scripts,
# styles, images and fonts only, so no inline script and no style attribute (the templates have
# none: keep it so, or give a script a nonce with csp.constants.NONCE); no plugins; never framed;
# forms post only here. A view that sets the header itself keeps its own: the OAuth consent page
# (apps.oauth.views.FRAMING_HEADERS) has no form-action, because browsers apply form-action to the
# redirect that answers its form, which goes to the client's redirect URI.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "base-uri": [SELF],
        "object-src": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
# The API reference pages (apps.core.api.reference) keep that policy, with what each needs added
# (csp_update on the view) and nothing from another host: every script, style, font and image is
# served from here. Found by opening each page in Chromium under the site's policy, one allowance
# at a time (tests/test_api_reference_browser.py opens them and fails on any violation):
# - Redoc (/api/docs/) draws with styled-components, which writes <style> elements: 'unsafe-inline'
#   for styles only (no script is inline); its search runs in a Web Worker made from a blob: URL;
#   its icons are data: images.
# - Swagger UI (/api/docs/try/) has a <style> block in drf-spectacular's page and draws with style
#   attributes; its icons are data: images. Its starting script is a file (the split view).
API_REFERENCE_CSP = {
    "redoc": {"style-src": [SELF, UNSAFE_INLINE], "worker-src": [SELF, "blob:"], "img-src": [SELF, "data:"]},
    "swagger": {"style-src": [SELF, UNSAFE_INLINE], "img-src": [SELF, "data:"]},
}

# --- secrets kept encrypted at rest (apps.core.encryption) --------------------------------------

# Fernet keys (urlsafe base64, 32 bytes) for secrets kept encrypted at rest; the first encrypts,
# all decrypt, so a new key is put first and the old one kept until everything is re-encrypted.
ATRIUM_ENCRYPTION_KEYS = env.list("ATRIUM_ENCRYPTION_KEYS", [])
