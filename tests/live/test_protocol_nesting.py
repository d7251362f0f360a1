"""live/protocol.py: a frame that nests arrays or objects is refused before the JSON parser
sees it, so no frame makes the parser recurse deeply; brackets inside text are still fine."""

import json

import pytest

from live.protocol import Malformed, parse

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


def test_nested_frames_are_refused_before_they_are_parsed(monkeypatch):
    parsed = []
    loads = json.loads
    monkeypatch.setattr(json, "loads", lambda text, **kw: parsed.append(text) or loads(text, **kw))
    for frame in ["[" * 1000 + "]" * 1000, '{"type": "ping", "x": [[[[[1]]]]]}', "{" * 5]:
        with pytest.raises(Malformed, match="nests"):
            parse(frame)
    assert parsed == []
    assert parse('{"type": "chat", "text": "a \\" [b] {c} [[[[[["}') == ("chat", {"text": 'a " [b] {c} [[[[[['})
    assert len(parsed) == 1
