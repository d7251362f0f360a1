"""config/drain.py: the graceful SIGTERM leans on Daphne's insides, so it checks them first and
leaves Daphne's own SIGTERM alone when they are not the ones it knows. (The drain itself:
tests/config/test_rolling_restart.py, with nginx and two real processes.)"""

import pytest
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol

from config import drain


def test_an_unknown_daphne_keeps_its_own_sigterm(monkeypatch):
    import daphne
    from twisted.internet import reactor

    scheduled = []
    monkeypatch.setattr(reactor, "callWhenRunning", lambda *args: scheduled.append(args))
    monkeypatch.setattr(daphne, "__version__", "5.0.0")
    with pytest.warns(RuntimeWarning, match="Daphne 5.0.0"):
        assert drain.drain_on_sigterm() is False
    assert scheduled == []
    monkeypatch.setattr(daphne, "__version__", "4.2.3")
    assert drain.drain_on_sigterm() is True
    assert scheduled and scheduled[0][2] is drain._on_sigterm


def test_the_check_names_what_changed():
    class Daphne:
        __version__ = "4.2.9"

    class OldSocket:
        STATE_OPEN = 1

        def onMessage(self, payload, is_binary):  # noqa: N802
            pass

    with pytest.raises(drain.DidNotInstall, match="OldSocket has no sendCloseFrame"):
        drain._check(Daphne, Server, OldSocket)
    drain._check(Daphne, Server, WebSocketProtocol)  # the library as it is
