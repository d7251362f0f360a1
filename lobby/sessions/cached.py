"""One process: sessions in memory, written through to the database (``lobby.sessions``)."""

from django.contrib.sessions.backends import cached_db

from lobby.sessions import WrittenOutRead


class SessionStore(WrittenOutRead, cached_db.SessionStore):
    pass
