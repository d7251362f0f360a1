"""The games app's start-up hands each lower layer the very services it calls; a layer never
handed them fails at its first call with ``HandoffNotSet``, naming what is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from games import services
from games.computer import bots
from games.runtime.handoffs import HandoffNotSet
from games.services import wiring
from tests.support.handoffs import handoff_unset

HANDOFFS = {"bots": bots.SERVICES}


def test_start_up_hands_every_lower_layer_the_real_services():
    assert bots.SERVICES.get() == bots.BotServices(move_submit=services.move_submit)


def test_wiring_again_changes_nothing():
    before = {name: handoff.get() for name, handoff in HANDOFFS.items()}
    wiring.wire()
    assert {name: handoff.get() for name, handoff in HANDOFFS.items()} == before


@pytest.mark.parametrize("name, module", [("bots", "games.computer.bots")])
def test_each_hand_off_not_set_names_its_module(monkeypatch, name, module):
    handoff_unset(monkeypatch, HANDOFFS[name])
    with pytest.raises(HandoffNotSet, match=module):
        HANDOFFS[name].get()


def test_the_computers_turn_not_handed_move_submit_says_so(monkeypatch):
    handoff_unset(monkeypatch, bots.SERVICES)
    with pytest.raises(HandoffNotSet, match="BotServices: move_submit"):
        bots._submit_turn(None, "a1")


def test_a_process_that_only_sets_django_up_has_every_hand_off_set(tmp_path):
    """As a worker or a management command that never imports ``games.services`` itself."""
    code = ("import django; django.setup()\n"
            "from games.computer import bots\n"
            "print(bots.SERVICES.is_set)\n")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": f"sqlite:///{tmp_path}/db"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          cwd=Path(__file__).resolve().parents[3])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
