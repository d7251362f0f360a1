"""Autobahn (Daphne's websocket library) formats its whole configuration with ``pprint`` for
a debug log line on every websocket it opens, whether or not debug lines are written: 5% of
the interpreter's time while 800 sockets opened in 5 s (py-spy). ``lazy_pformat`` gives it a
string that formats itself only when something prints it."""

from __future__ import annotations

from pprint import pformat


class LazyFormat(str):
    """Reads as ``pformat(obj)`` wherever it is printed or formatted; costs nothing otherwise."""

    def __new__(cls, obj):
        text = super().__new__(cls, "")
        text.obj = obj
        return text

    def __str__(self) -> str:
        return pformat(self.obj)

    def __format__(self, spec: str) -> str:
        return format(pformat(self.obj), spec)

    __repr__ = __str__


def lazy_pformat() -> None:
    from autobahn.websocket import protocol

    protocol.pformat = LazyFormat
