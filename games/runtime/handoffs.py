"""Hand-offs up the layers: what a lower module must call above it (a service it may not
import), received as one typed bundle, set once at start-up.

The lower module declares the bundle, a frozen dataclass whose fields carry the services' own
names and signatures, and one ``Handoff`` holding it; ``games.services.wiring.wire`` (run by
the games app's ``ready``, so in every process: web, worker, management command, test) builds
each bundle from the real functions and sets it (a bundle an app above the games app fills, such
as the tournaments' ``games.services.finishing.ENDED``, names its own ``set_by``). Asked for before that, a hand-off raises
``HandoffNotSet``, naming the bundle and what sets it, at the first call instead of as a
missing key or a call of None further on.

    >>> from collections.abc import Callable
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Clocks:
    ...     clock_sweep: Callable[[], int]
    >>> CLOCKS = Handoff(Clocks, needed_by="the example")
    >>> CLOCKS.set(Clocks(clock_sweep=lambda: 0))
    >>> CLOCKS.get().clock_sweep()
    0
"""

from __future__ import annotations

import dataclasses
from typing import Generic, TypeVar

Bundle = TypeVar("Bundle")

SET_BY = "games.services.wiring.wire (run by the games app's ready(), once Django is set up)"


class HandoffNotSet(RuntimeError):
    """A lower module asked for the services above it before start-up handed them over."""


class HandoffAlreadySet(RuntimeError):
    """A hand-off was set a second time, with other services than the first."""


class Handoff(Generic[Bundle]):
    """The one bundle of type ``kind`` that ``needed_by`` calls: ``set`` once, ``get`` any time after."""

    def __init__(self, kind: type[Bundle], *, needed_by: str, set_by: str = SET_BY) -> None:
        self.kind = kind
        self.needed_by = needed_by
        self.set_by = set_by
        self._bundle: Bundle | None = None

    def set(self, bundle: Bundle) -> None:
        """Hand the services over (again with an equal bundle: nothing changes)."""
        if not isinstance(bundle, self.kind):
            raise TypeError(f"{self.needed_by} takes a {self.kind.__name__}, not {type(bundle).__name__}")
        if self._bundle is not None and self._bundle != bundle:
            raise HandoffAlreadySet(f"{self.kind.__name__} for {self.needed_by} is already set, to other services")
        self._bundle = bundle

    def get(self) -> Bundle:
        """The services handed over; ``HandoffNotSet`` if none were."""
        if self._bundle is None:
            fields = ", ".join(field.name for field in dataclasses.fields(self.kind))
            raise HandoffNotSet(f"{self.needed_by} needs its services ({self.kind.__name__}: {fields}), and none "
                                f"were handed over: they are set by {self.set_by}")
        return self._bundle

    @property
    def is_set(self) -> bool:
        return self._bundle is not None
