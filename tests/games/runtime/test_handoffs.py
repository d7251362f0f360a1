"""A hand-off up the layers: set once, asked for any time after, one clear error before."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from games.runtime.handoffs import Handoff, HandoffAlreadySet, HandoffNotSet

pytestmark = pytest.mark.pure


@dataclass(frozen=True)
class Clocks:
    clock_flag: Callable[..., object]
    clock_sweep: Callable[[], int]


def sweep_none() -> int:
    return 0


def sweep_one() -> int:
    return 1


def test_asked_for_before_it_is_set_it_names_the_module_the_bundle_its_services_and_what_sets_it():
    clocks = Handoff(Clocks, needed_by="the example timers")
    assert not clocks.is_set
    with pytest.raises(HandoffNotSet) as raised:
        clocks.get()
    message = str(raised.value)
    assert "the example timers" in message and "Clocks: clock_flag, clock_sweep" in message
    assert "games.services.wiring.wire" in message


def test_once_set_it_gives_the_very_functions_handed_over():
    clocks = Handoff(Clocks, needed_by="the example timers")
    clocks.set(Clocks(clock_flag=print, clock_sweep=sweep_none))
    assert clocks.is_set and clocks.get().clock_sweep is sweep_none and clocks.get().clock_sweep() == 0


def test_set_again_with_the_same_services_changes_nothing_and_with_others_is_refused():
    clocks = Handoff(Clocks, needed_by="the example timers")
    clocks.set(Clocks(clock_flag=print, clock_sweep=sweep_none))
    clocks.set(Clocks(clock_flag=print, clock_sweep=sweep_none))
    with pytest.raises(HandoffAlreadySet, match="Clocks for the example timers is already set"):
        clocks.set(Clocks(clock_flag=print, clock_sweep=sweep_one))
    assert clocks.get().clock_sweep is sweep_none


def test_a_bundle_of_another_kind_is_refused():
    clocks = Handoff(Clocks, needed_by="the example timers")
    with pytest.raises(TypeError, match="takes a Clocks, not dict"):
        clocks.set({"clock_flag": print, "clock_sweep": sweep_none})
    assert not clocks.is_set
