"""Several processes: sessions in the database, so a logout anywhere ends them everywhere
(``lobby.sessions``)."""

from django.contrib.sessions.backends import db

from lobby.sessions import WrittenOutRead


class SessionStore(WrittenOutRead, db.SessionStore):
    pass
