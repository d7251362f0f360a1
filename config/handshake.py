"""Autobahn (Daphne's websocket library) formats its whole configuration with ``pprint`` for
a debug log line on every websocket it opens, whether or not debug lines are written: 5% of
the interpreter's time while 800 sockets opened in 5 s (py-spy). ``lazy_pformat`` gives it a
string that formats itself only when something prints it."""

from __future__ import annotations

import inspect
from pprint import pformat

from config.patches import Patch, Private, replace


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


def lazy_pformat() -> bool:
    """Install the lazy formatting, if autobahn is the one in ``PATCH``; True when installed."""
    return PATCH.install()


def _install() -> None:
    from autobahn.websocket import protocol  # noqa: PLC0415

    replace(protocol, "pformat", LazyFormat)


PATCH = Patch(
    unpatched="Autobahn formats its configuration for every websocket opened",
    library="autobahn", module="autobahn", versions=("26.10.",),
    # the module's own ``pformat``, called by the handshake's debug line with the object alone
    uses=(Private("autobahn.websocket.protocol", "pformat", "config/handshake.py",
                  params=tuple(inspect.signature(pformat).parameters)),
          Private("autobahn.websocket.protocol", "pformat", "config/handshake.py",
                  named_in="autobahn.websocket.protocol:WebSocketProtocol._connectionMade")),
    benchmark="`moves.py arrivals` (docs/benchmarks.md: 800 sockets opening within 5 s) under py-spy --gil: "
              "autobahn's pprint was 5% of the interpreter (commit 6b2df4c)",
    apply=_install,
)
