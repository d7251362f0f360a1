"""Boardhall settings, read from the environment.

Defaults run on one machine with nothing installed: SQLite and the in-memory channel layer.
DATABASE_URL selects PostgreSQL, REDIS_URL selects channels-redis (needed for more than one process).
"""

import os
import secrets
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.conf.locale import LANG_INFO
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def secret_key_from_file(path: Path) -> str:
    """The key kept in ``path``, made (random, readable by the owner only) on first use.

    The file appears complete or not at all (written aside, then linked), so processes that
    start together agree on one key.
    """
    if not path.exists():
        draft = path.with_name(f"{path.name}.{os.getpid()}.draft")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(50) + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    key = path.read_text().strip()
    if not key:
        raise ImproperlyConfigured(f"{path} is empty: delete it to have a new secret key made.")
    return key


# Production mode unless asked otherwise: no technical error pages for anyone on the network.
DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "") or secret_key_from_file(
    Path(os.environ.get("SECRET_KEY_FILE", BASE_DIR / ".secret_key")))
# The site is reached over HTTPS (directly or through a TLS proxy): only then are cookies
# secure-only and plain HTTP redirected, so local play over http://127.0.0.1 keeps working.
BEHIND_TLS_PROXY = env_bool("BEHIND_TLS_PROXY", False)
HTTPS_ONLY = env_bool("HTTPS_ONLY", BEHIND_TLS_PROXY)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
# Websockets are accepted from the origin of the page on the host they connect to, and from
# these (config/origins.py), e.g. "https://play.example:8443".
ALLOWED_ORIGINS = env_list("ALLOWED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "lobby",
    "games",
    "botapi",
    "social",
    "notify",
    "tournaments",
    "ggparena",
    # After games: its runworker (games/management/commands/runworker.py) replaces Channels' own.
    "channels",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the cookie, else the browser's Accept-Language (docs/translating.md).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Signing in sets the language cookie to the account's own choice (lobby/language.py).
    "lobby.language.AccountLanguage",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.errorpages.BlankRefusalPages",
    "config.errorpages.KnownMethodsOnly",
    "config.errorpages.DatabaseAwayPage",
    "config.errorpages.UnknownRulesPage",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

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
            ],
        },
    },
]

DATABASES = {"default": dj_database_url.config(default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # One long-lived connection per database thread (opening one per call cost a third of the
    # move path). SQLite ignores SELECT ... FOR UPDATE: writers take the lock when the
    # transaction starts, and concurrent submissions are kept apart by the version check and
    # (match, ply) uniqueness.
    DATABASES["default"]["CONN_MAX_AGE"] = None
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    # PostgreSQL: Django's psycopg pool. Each database thread borrows a connection for one
    # call and gives it back, so DB_THREADS threads need at most that many (plus HTTP views).
    DATABASES["default"]["OPTIONS"] = {"pool": {
        "min_size": 2, "max_size": int(os.environ.get("DB_POOL_SIZE", "16")), "timeout": 4}}
    # (timeout: how long a call waits for a connection. With the database away it waits this
    # long and fails: under Daphne's 5 s for a websocket handshake, so the socket is told to
    # retry, with close code 4503, before Daphne gives up on it.)
# Threads that run database work for the sockets (games/runtime/dbthreads.py). SQLite has one writer
# at a time, so one thread; on PostgreSQL several overlap their round trips.
DB_THREADS = int(os.environ.get("DB_THREADS", "1" if DATABASES["default"]["ENGINE"].endswith("sqlite3") else "4"))
# With one database thread, moves that queue for it share a transaction and its commit
# (live/movequeue.py); with several, each move is its own call and they overlap.
MOVE_BATCHES = DB_THREADS == 1
# Tests use a file for SQLite too: live-server tests run Daphne in a child process.
DATABASES["default"]["TEST"] = {"NAME": os.environ.get("TEST_DB_NAME") or (
    str(BASE_DIR / "test_boardhall.sqlite3") if DATABASES["default"]["ENGINE"].endswith("sqlite3") else None)}

REDIS_URL = os.environ.get("REDIS_URL", "")
# Redis Sentinel (docs/operations.md, "Several hosts"): "host:port,host:port"; the primary is the
# one they name for REDIS_SENTINEL_MASTER, asked again after a failover. REDIS_URL then gives
# only the database number and the password.
REDIS_SENTINELS = [(host, int(port)) for host, _, port in
                   (entry.rpartition(":") for entry in env_list("REDIS_SENTINELS", ""))]
REDIS_SENTINEL_MASTER = os.environ.get("REDIS_SENTINEL_MASTER", "boardhall")


def redis_host_entry(**options) -> dict:
    """channels-redis's entry for the Redis of REDIS_URL, or of its Sentinels."""
    if not REDIS_SENTINELS:
        return {"address": REDIS_URL, **options}
    from games.runtime.redisconn import SENTINEL_SECONDS, url_options  # noqa: PLC0415 (settings first)

    return {"sentinels": REDIS_SENTINELS, "master_name": REDIS_SENTINEL_MASTER, **url_options(REDIS_URL),
            "sentinel_kwargs": {"socket_connect_timeout": SENTINEL_SECONDS, "socket_timeout": SENTINEL_SECONDS},
            **options}


if REDIS_URL and os.environ.get("REDIS_LAYER", "pubsub") == "pubsub":
    # Redis publish/subscribe: one subscription per process, a message goes straight to the
    # processes whose sockets listen. (The list-based layer lost state messages under load.)
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "live.layers.RedisPubSubLayer",
            "CONFIG": {
                # Publishes run concurrently (live/layers.py), each on a pooled connection;
                # redis-py's default pool refuses past 100 at once. No per-command timeout:
                # the layer bounds each publish itself, more cheaply (layers.PUBLISH_SECONDS).
                "hosts": [redis_host_entry(socket_connect_timeout=5, socket_timeout=None,
                                           max_connections=int(os.environ.get("REDIS_MAX_CONNECTIONS", "1000")))],
                "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "boardhall"),
            },
        }
    }
elif REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py 8 otherwise times out idle channel reads every 5 s; its default pool of
                # 100 connections ran out under load (MaxConnectionsError).
                "hosts": [redis_host_entry(socket_timeout=None, socket_connect_timeout=5,
                                           max_connections=int(os.environ.get("REDIS_MAX_CONNECTIONS", "1000")))],
                "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "boardhall"),
                # Every socket of a process shares one inbox in Redis, and a message to a full
                # inbox is dropped without a word: at 500, a loaded process lost state messages.
                "capacity": int(os.environ.get("CHANNEL_CAPACITY", "50000")),
                "expiry": 30,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "live.layers.InMemoryLayer"}}

AUTH_USER_MODEL = "lobby.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "lobby:login"
LOGIN_REDIRECT_URL = "lobby:home"
LOGOUT_REDIRECT_URL = "lobby:home"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
# The languages are the folders of locale/ (each a translation, docs/translating.md) and
# English, the source. Folders named in PSEUDO_LOCALES are the tests' pseudo-locale: offered
# only when BOARDHALL_PSEUDO_LOCALE is set (the tests set it).
LOCALE_PATHS = [BASE_DIR / "locale"]
PSEUDO_LOCALES = ("xx",)


def locale_languages(folder: Path, *, pseudo: bool) -> list[tuple[str, str]]:
    """("en", "English") and, for each folder of ``folder`` holding a django.po, its code and
    the language's own name (Django's list of languages; the code itself if it has none);
    a folder in PSEUDO_LOCALES only with ``pseudo``."""
    codes = sorted(path.parent.parent.name for path in folder.glob("*/LC_MESSAGES/django.po"))
    found = [code for code in codes if code != "en" and (pseudo or code not in PSEUDO_LOCALES)]
    languages = [("en", "English")]
    for code in found:
        code = code.lower().replace("_", "-")
        name = LANG_INFO.get(code, {}).get("name_local", code)
        languages.append((code, name[:1].upper() + name[1:]))  # as a menu shows it: "Español"
    return languages


# The language cookie (the footer's menu sets it) lasts a year; readable by the pages' scripts.
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGES = locale_languages(LOCALE_PATHS[0], pseudo=env_bool("BOARDHALL_PSEUDO_LOCALE", False))
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
WHITENOISE_USE_FINDERS = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Security: strict when the site is served over HTTPS (`manage.py check --deploy` is clean with
# DEBUG=0 HTTPS_ONLY=1), relaxed for plain HTTP on a home network.
SESSION_COOKIE_HTTPONLY = True
# One process serves the site: it reads sessions from its own memory (written through to the
# database), which saves a query on every page and socket. Several processes keep reading the
# database: a logout on one must end the session on all. Both are Django's stores with their
# read written out (lobby/sessions/).
SESSION_ENGINE = "lobby.sessions.database" if REDIS_URL else "lobby.sessions.cached"
# Django's ModelBackend with the user read written out; the plain one stays listed so that
# sessions made before still name a backend that is allowed.
AUTHENTICATION_BACKENDS = ["lobby.auth.Backend", "django.contrib.auth.backends.ModelBackend"]
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", HTTPS_ONLY)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", HTTPS_ONLY)
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS_ONLY)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000" if HTTPS_ONLY else "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS_ONLY
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Joining the browsers' HSTS preload list is hard to undo and binds every subdomain: it is the
# operator's decision for their domain (SECURE_HSTS_PRELOAD=1), so the deploy check does not nag.
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
# Content-Security-Policy (django-csp): scripts, styles, images and sockets from this site only,
# no inline script or style (page data travels in json_script blocks, which are not run).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Uploads (the GGP import takes at most 1 MB, games/history/services.py): form fields beyond
# this are refused, and files up to it stay in memory.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_500_000
# No request body may be larger: Daphne refuses one as it arrives (config/bodylimit.py), nginx
# in the scaled set-up too (deploy/nginx.py), with a 413 page.
REQUEST_MAX_BYTES = DATA_UPLOAD_MAX_MEMORY_SIZE
# A request's headers (a websocket's handshake request too) must be in within REQUEST_HEAD_SECONDS
# of its first byte, its body within REQUEST_BODY_SECONDS more; else it is answered 408 and closed
# (config/slowclients.py).
REQUEST_HEAD_SECONDS = float(os.environ.get("REQUEST_HEAD_SECONDS", "20"))
REQUEST_BODY_SECONDS = float(os.environ.get("REQUEST_BODY_SECONDS", "60"))
FILE_UPLOAD_MAX_MEMORY_SIZE = 1_100_000

# Websocket limits (games/runtime/throttle.py): Daphne drops a connection whose message is over 1 MiB
# (the websocket standard lets a server do so); consumers refuse texts over
# live.protocol.MAX_FRAME_CHARS and, per client across its sockets, more than WS_RATE_BURST
# messages at once, refilled at WS_RATE_PER_SECOND.
WS_RATE_PER_SECOND = float(os.environ.get("WS_RATE_PER_SECOND", "5"))
WS_RATE_BURST = int(os.environ.get("WS_RATE_BURST", "20"))
# Match and lobby sockets one client (a player, or an anonymous visitor's address) may have open.
WS_MAX_SOCKETS = int(os.environ.get("WS_MAX_SOCKETS", "30"))
PRESENCE_TIMEOUT_SECONDS = 60
# A match's presence (spectators, who is there) reaches its pages at most once per this many
# seconds, every page opening or closing meanwhile in one message (live/crowds.py).
PRESENCE_BATCH_SECONDS = float(os.environ.get("PRESENCE_BATCH_SECONDS", "0.5"))
# The other players may claim a match from a player whose turn it is once that player has had
# no page open on the match for this long (their seat then counts as resigned).
ABANDON_SECONDS = int(os.environ.get("ABANDON_SECONDS", "60"))
# Timed matches end on time by themselves (games/services/flagfall.py): besides a timer per match, each
# server process sweeps for missed deadlines when it starts serving and then this often (0: never).
CLOCK_SWEEP_SECONDS = int(os.environ.get("CLOCK_SWEEP_SECONDS", "30"))
# In real time each seat's clock starts at its own first move; it has this long to make that
# move, or the match is aborted (as on lichess). Correspondence and untimed matches: no limit.
FIRST_MOVE_SECONDS = int(os.environ.get("FIRST_MOVE_SECONDS", "30"))
# A match waiting for players is called off once all its players have left its page this long
# (the lobby stops listing it at once).
WAITING_EXPIRE_SECONDS = int(os.environ.get("WAITING_EXPIRE_SECONDS", "120"))
# A private match waiting for the friends its invite link was sent to stays open while one of its
# players has a page of the site open, and this long after the last of them left the site
# (games/services/invites.py).
INVITE_GRACE_SECONDS = int(os.environ.get("INVITE_GRACE_SECONDS", "300"))
# A player may have this many matches of their own waiting for players at once; creating
# matches is limited per player and per client address (creations a minute, across processes
# with Redis).
WAITING_MATCHES_MAX = int(os.environ.get("WAITING_MATCHES_MAX", "3"))
CREATE_PER_MINUTE = int(os.environ.get("CREATE_PER_MINUTE", "10"))
# A signed-up account may run this many tournaments that have not finished (docs/tournaments.md).
TOURNAMENTS_OPEN_MAX = int(os.environ.get("TOURNAMENTS_OPEN_MAX", "2"))
# Each server process runs an arena pairing wave this often (tournaments/arena_sweep.py; 0: never).
ARENA_SWEEP_SECONDS = int(os.environ.get("ARENA_SWEEP_SECONDS", "3"))
# An arena's player who is not at it (no page, no bot event stream) when a wave would pair them
# is paused (tournaments/arena_presence.py; 0: never).
ARENA_PAUSE_ABSENT = os.environ.get("ARENA_PAUSE_ABSENT", "1") == "1"
CREATE_PER_ADDRESS_PER_MINUTE = int(os.environ.get("CREATE_PER_ADDRESS_PER_MINUTE", "30"))
# New guests (the guest form, and "Play the computer" for a visitor) per client address, a
# minute and a UTC day (across processes with Redis): each guest is a new name and a new day's
# share of the per-guest limits (ANALYSIS_GUEST_PER_DAY). Ten a minute lets a classroom behind one
# address in within minutes; 150 a day is lichess's cap on new accounts per address.
GUEST_CREATE_PER_ADDRESS_PER_MINUTE = int(os.environ.get("GUEST_CREATE_PER_ADDRESS_PER_MINUTE", "10"))
GUEST_CREATE_PER_ADDRESS_PER_DAY = int(os.environ.get("GUEST_CREATE_PER_ADDRESS_PER_DAY", "150"))
# New accounts (sign-up, a guest's included) per client address, a minute and a UTC day: the
# guests' daily refusal points to sign-up, and fresh accounts are what farms the ladder. Counted
# only when the sign-up would be made (a taken name tried again is not). Stricter than lichess's
# 150 a day: Boardhall asks no e-mail address; a school behind one address may raise it.
SIGNUP_PER_ADDRESS_PER_MINUTE = int(os.environ.get("SIGNUP_PER_ADDRESS_PER_MINUTE", "5"))
SIGNUP_PER_ADDRESS_PER_DAY = int(os.environ.get("SIGNUP_PER_ADDRESS_PER_DAY", "30"))
# Games against the computer start at once and never wait in the lobby: they are counted apart
# from the creations above, more roomily (a player, an address, a minute), and a player may
# have this many unfinished at once (finished and aborted ones do not count).
COMPUTER_CREATE_PER_MINUTE = int(os.environ.get("COMPUTER_CREATE_PER_MINUTE", "30"))
COMPUTER_CREATE_PER_ADDRESS_PER_MINUTE = int(os.environ.get("COMPUTER_CREATE_PER_ADDRESS_PER_MINUTE", "60"))
COMPUTER_MATCHES_MAX = int(os.environ.get("COMPUTER_MATCHES_MAX", "5"))
# An untimed one nobody has moved in for this long no longer counts (no clock will end it; it
# stays to resume or resign). lichess ends its untimed games against the computer after 6 hours
# without a move; here the game is kept, and a day lets a slow game go on over an evening.
COMPUTER_IDLE_HOURS = int(os.environ.get("COMPUTER_IDLE_HOURS", "24"))
# A direct challenge nobody answered expires after this many seconds.
CHALLENGE_SECONDS = int(os.environ.get("CHALLENGE_SECONDS", "120"))

# The computer player: a cap on the search rounds per move of every level (games.computer.search.LEVELS:
# 30, 300 and 3,000 rounds; the expert has no cap of its own and thinks until its time is up), and
# the thinking time in seconds of a move. The time is wall-clock time: on a busy machine the
# computer gets fewer rounds done, never more time. Tests lower both.
COMPUTER_ITERATIONS = int(os.environ.get("COMPUTER_ITERATIONS", "1000000"))
COMPUTER_SECONDS = float(os.environ.get("COMPUTER_SECONDS", "1.5"))
# Where the computer thinks (games/computer/bots.py): "pool", processes of the web server (embedded);
# "channel", worker processes (manage.py runworker computer; the default with REDIS_URL);
# "inline", in the calling thread (tests of the service layer).
COMPUTER_WORKERS = os.environ.get("COMPUTER_WORKERS", "channel" if REDIS_URL else "pool")
COMPUTER_PROCESSES = int(os.environ.get("COMPUTER_PROCESSES", "1"))
# How much the computer's thinking gives way to the threads serving people: the nice value added
# to each thinking process (pool) or thread (worker), 0 to 19. On a busy machine the computer
# answers later; its strength is set by search rounds, and its 1.5 s cap has ample room.
COMPUTER_NICE = min(19, max(0, int(os.environ.get("COMPUTER_NICE", "10"))))

# Post-game analysis (games/services/analysis.py, games/computer/analysis_runs.py): search rounds per
# position (fixed, with a fixed seed: repeatable); where it runs, as COMPUTER_WORKERS ("pool",
# "channel", "inline", or "off": queued only, run by hand); the limits: analyses queued or running
# at once, and per guest in 24 hours; a running analysis silent this long is taken over.
ANALYSIS_ROUNDS = int(os.environ.get("ANALYSIS_ROUNDS", "3000"))
ANALYSIS_WORKERS = os.environ.get("ANALYSIS_WORKERS", COMPUTER_WORKERS)
ANALYSIS_QUEUE_MAX = int(os.environ.get("ANALYSIS_QUEUE_MAX", "20"))
ANALYSIS_GUEST_PER_DAY = int(os.environ.get("ANALYSIS_GUEST_PER_DAY", "5"))
ANALYSIS_STALE_SECONDS = int(os.environ.get("ANALYSIS_STALE_SECONDS", "60"))
# GGP players (games/ggp/): the hosts and ports Boardhall may call (names, addresses, networks,
# each with ":port" or ":low-high"; "localhost" is the loopback addresses; by default ten ports
# of it, not every local service), checked at registration and resolved and checked again at each
# call; the cap on an answer's size; the seconds an INFO check waits. A registered address never
# reaches any other host of the server's network.
GGP_PLAYER_HOSTS = env_list("GGP_PLAYER_HOSTS", "localhost:9147-9156")
GGP_ANSWER_BYTES = int(os.environ.get("GGP_ANSWER_BYTES", "4096"))
GGP_INFO_SECONDS = float(os.environ.get("GGP_INFO_SECONDS", "3"))
# A GGP player's answer may arrive this long after its play clock (the network's share) before
# its turn is played at random as "no answer"; an answer in that time is "too late".
GGP_GRACE_SECONDS = float(os.environ.get("GGP_GRACE_SECONDS", "1"))
# Threads of an embedded server that wait on GGP players (games/ggp/offpath.py).
GGP_THREADS = int(os.environ.get("GGP_THREADS", "8"))
# Each process that serves GGP tasks (each runworker ggp, or the embedded server) asks, this often,
# for the active GGP matches no task serves (one whose task died with a worker moves on:
# games/ggp/manager.py); 0 turns it off.
GGP_RESUME_SECONDS = float(os.environ.get("GGP_RESUME_SECONDS", "30"))
# The GGP arena (ggparena/, docs/ggp-arena.md): every GGP_ARENA_SECONDS one process schedules the
# opted-in programs that answer INFO available into casual matches (at most GGP_ARENA_MATCHES
# unfinished), rule sets in turn from GGP_ARENA_GAMES (empty: every rule set), each match's start
# and play clocks drawn from the ranges "low-high" (seconds); the computer at level
# GGP_ARENA_COMPUTER_LEVEL (1-4) takes the seats no program fills. 0 seconds turns it off.
GGP_ARENA_SECONDS = float(os.environ.get("GGP_ARENA_SECONDS", "20"))
GGP_ARENA_MATCHES = int(os.environ.get("GGP_ARENA_MATCHES", "6"))
GGP_ARENA_GAMES = env_list("GGP_ARENA_GAMES", "")
GGP_ARENA_START_SECONDS = os.environ.get("GGP_ARENA_START_SECONDS", "10-30")
GGP_ARENA_PLAY_SECONDS = os.environ.get("GGP_ARENA_PLAY_SECONDS", "5-15")
GGP_ARENA_COMPUTER_LEVEL = int(os.environ.get("GGP_ARENA_COMPUTER_LEVEL", "2"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # The database pool logs each failed try to reconnect: while the database is away, one line
    # a minute of each (games/runtime/outages.py).
    "filters": {"once_a_minute": {"()": "games.runtime.outages.OnceAMinute"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"psycopg.pool": {"filters": ["once_a_minute"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# The bot API (botapi): per token, a burst of calls and the rate they refill at; streams open at
# once; the seconds between two keep-alive lines of a stream (lichess sends one about every 7 s).
BOT_API_BURST = int(os.environ.get("BOT_API_BURST", "60"))
BOT_API_CALLS_PER_SECOND = float(os.environ.get("BOT_API_CALLS_PER_SECOND", "10"))
BOT_API_STREAMS = int(os.environ.get("BOT_API_STREAMS", "4"))
BOT_API_KEEPALIVE_SECONDS = float(os.environ.get("BOT_API_KEEPALIVE_SECONDS", "5"))

# Notifications with the page closed (notify/): email through SMTP when EMAIL_HOST is set (off
# otherwise), web push to the push services named below. SITE_URL is the address links in them
# start with. Sending runs in a pool of this many threads per process ("thread"), or "inline"
# (tests), or "off".
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "10"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Boardhall <boardhall@localhost>")
NOTIFY_WORKERS = os.environ.get("NOTIFY_WORKERS", "thread")
NOTIFY_THREADS = int(os.environ.get("NOTIFY_THREADS", "2"))
# The browsers' push services (a host or its parent domain): the server posts to no other host.
PUSH_SERVICE_HOSTS = env_list("PUSH_SERVICE_HOSTS", "fcm.googleapis.com,push.services.mozilla.com,"
                                                    "notify.windows.com,push.apple.com")
# Who runs this server, for the push services (the VAPID "sub" claim): a mailto: or https: URL.
PUSH_CONTACT = os.environ.get("PUSH_CONTACT", "mailto:boardhall@localhost")
PUSH_TTL_SECONDS = int(os.environ.get("PUSH_TTL_SECONDS", "86400"))
PUSH_TIMEOUT_SECONDS = float(os.environ.get("PUSH_TIMEOUT_SECONDS", "10"))
