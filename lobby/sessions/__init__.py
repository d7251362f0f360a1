"""Django's session stores with their one read written out (``games.rows``): a page or socket
opening reads its session, and the ORM compiling that query cost more than running it.
``SESSION_ENGINE`` names ``lobby.sessions.cached`` (one process: memory, written through to
the database) or ``lobby.sessions.database`` (several processes)."""

from __future__ import annotations

from django.utils import timezone

from games import rows


class WrittenOutRead:
    """The session row read with SQL built once; the rest is Django's store unchanged."""

    def _get_session_from_db(self):
        session = rows.session_unexpired(self.model, self.session_key, timezone.now())
        if session is None:
            self._session_key = None  # as Django's store does for a missing or expired session
        return session
