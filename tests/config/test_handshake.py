"""config/handshake.py: autobahn's per-socket debug formatting happens only when printed."""

import logging
import pprint

from autobahn.websocket import protocol

import config.asgi  # noqa: F401  (installs the lazy formatting, as the server does)
from config.handshake import LazyFormat


def test_autobahn_formats_its_configuration_only_when_it_is_printed(monkeypatch):
    calls = []
    monkeypatch.setattr("config.handshake.pformat", lambda obj: calls.append(obj) or pprint.pformat(obj))
    attrs = [("openHandshakeTimeout", 5, "WebSocketServerFactory")]
    text = protocol.pformat(attrs)
    assert isinstance(text, LazyFormat) and calls == []  # nothing formatted yet
    assert "\n{attrs}".format(attrs=text) == "\n" + pprint.pformat(attrs)  # as a log line formats it
    assert str(text) == repr(text) == "%s" % text == pprint.pformat(attrs)
    assert len(calls) == 4


def test_a_debug_line_still_shows_the_configuration(caplog):
    attrs = {"autoPingInterval": 0}
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("autobahn.test").debug("%s", protocol.pformat(attrs))
    assert caplog.records[-1].getMessage() == pprint.pformat(attrs)
