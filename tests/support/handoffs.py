"""Swapping a service a lower layer was handed (``games.runtime.handoffs``) for one test."""

from __future__ import annotations

import dataclasses

from games.runtime.handoffs import Handoff


def handoff_replaced(monkeypatch, handoff: Handoff, **services) -> None:
    """Until the test ends, ``handoff`` holds its bundle with ``services`` (by field name) in place."""
    monkeypatch.setattr(handoff, "_bundle", dataclasses.replace(handoff.get(), **services))


def handoff_unset(monkeypatch, handoff: Handoff) -> None:
    """Until the test ends, ``handoff`` holds nothing, as in a process that never wired it."""
    monkeypatch.setattr(handoff, "_bundle", None)
