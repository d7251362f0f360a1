"""Django's session stores with their one read written out (``games.selectors.rows``): a page or socket
opening reads its session, and the ORM compiling that query cost more than running it.
``SESSION_ENGINE`` names ``lobby.sessions.cached`` (one process: memory, written through to
the database) or ``lobby.sessions.database`` (several processes)."""

from __future__ import annotations

import hashlib

from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.utils import timezone

from games.selectors import rows


class WrittenOutRead:
    """The session row read with SQL built once; the rest is Django's store unchanged, but for
    one check: a key a client sent that Django could not have made (other characters, other
    length) is no session, and never reaches the database (PostgreSQL refuses a NUL in text
    with an error, which would have been a 500 or a failed handshake)."""

    def _validate_session_key(self, key):
        return bool(key) and 8 <= len(key) <= 40 and all(c in VALID_KEY_CHARS for c in key)

    def _get_session_from_db(self):
        session = rows.session_unexpired(self.model, self.session_key, timezone.now())
        if session is None:
            self._session_key = None  # as Django's store does for a missing or expired session
        return session


def digest(session_key: str) -> str:
    """Names one browser's session in messages between processes without carrying the key."""
    return hashlib.sha256(session_key.encode()).hexdigest()[:32]
