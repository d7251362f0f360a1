"""Keep secrets out of Daphne's access log.

Daphne writes one line per request and per websocket event (to standard output by default,
``daphne.access.AccessLogGenerator``) with the whole request path, query string included. A
program that sends its bot API token as ``?token=bh_...`` is refused (the API reads the token
from the ``Authorization`` header only), but the token was already in the log. Here each path is
cleaned before the line is written: the value of every query parameter whose name speaks of a
secret (``token``, ``key``, ``secret``, ``password``, ``auth``, ``invite`` in any part of it) and
anything shaped like a Boardhall token (``bh_`` and what follows), wherever in the path, become
``[hidden]``. A line keeps the rest: method, path, status, size.

The patch leans on Daphne 4.2 (``PATCH``); a Daphne it does not know runs unpatched with one
warning, and its access log then shows paths as sent.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode

from config.patches import Patch, Private, replace

HIDDEN = "[hidden]"
SECRET_NAME = re.compile(r"token|key|secret|passw|auth|invite|session|signature", re.I)
TOKEN_SHAPE = re.compile(r"bh_[A-Za-z0-9_\-%]*")


def clean(path: str) -> str:
    """``path`` with its secrets hidden.

    >>> clean("/api/account?token=bh_abc&page=2")
    '/api/account?token=%5Bhidden%5D&page=2'
    >>> clean("/api/bh_abcdef/x")
    '/api/[hidden]/x'
    """
    path = TOKEN_SHAPE.sub(HIDDEN, path)
    base, mark, query = path.partition("?")
    if not mark:
        return path
    pairs = parse_qsl(query, keep_blank_values=True)
    if not any(SECRET_NAME.search(name) for name, _ in pairs):
        return path
    return base + "?" + urlencode([(name, HIDDEN if SECRET_NAME.search(name) else value) for name, value in pairs])


def hide_secrets() -> bool:
    """Install the cleaning (once) if Daphne is the one in ``PATCH``; True when installed."""
    return PATCH.install()


def _install() -> None:
    from daphne.access import AccessLogGenerator  # noqa: PLC0415

    written = AccessLogGenerator.__call__
    if getattr(written, "hides_secrets", False):
        return

    def __call__(self, protocol, action, details):  # noqa: N807 (the library's name)
        if isinstance(details, dict) and isinstance(details.get("path"), str):
            details = {**details, "path": clean(details["path"])}
        return written(self, protocol, action, details)

    __call__.hides_secrets = True
    replace(AccessLogGenerator, "__call__", __call__)


PATCH = Patch(
    unpatched="Daphne's access log shows request paths as sent, query strings and any token in them included",
    library="Daphne", module="daphne", versions=("4.2.",),
    uses=(Private("daphne.access:AccessLogGenerator", "__call__", "config/accesslog.py",
                  params=("self", "protocol", "action", "details")),),
    benchmark="a fix, not a speed-up: a bot API token sent as ?token= reached the access log "
              "(tests/config/test_accesslog.py)",
    apply=_install,
)
