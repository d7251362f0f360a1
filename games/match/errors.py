"""The one error type every service raises for a refused request (``games.services``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ServiceError(Exception):
    """A refused request. ``code`` is stable for clients, ``message`` is for people."""

    code: str
    message: str
    extra: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message
