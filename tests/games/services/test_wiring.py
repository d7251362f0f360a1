"""The games app's start-up hands each lower layer the very services it calls; a layer never
handed them fails at its first call with ``HandoffNotSet``, naming what is missing."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games import services
from games.computer import analysis_runs, bots
from games.ggp import manager as ggp_manager
from games.runtime.handoffs import HandoffNotSet
from games.services import flagfall, wiring
from tests.support.handoffs import handoff_unset

HANDOFFS = {"bots": bots.SERVICES, "flagfall": flagfall.SERVICES, "analysis_runs": analysis_runs.SERVICES,
            "manager": ggp_manager.SERVICES}


def test_start_up_hands_every_lower_layer_the_real_services():
    assert bots.SERVICES.get() == bots.BotServices(move_submit=services.move_submit)
    assert flagfall.SERVICES.get() == flagfall.FlagfallServices(
        clock_flag=services.clock_flag, clock_sweep=wiring.sweep,
        computer_turns_resume=services.computer_turns_resume)
    assert analysis_runs.SERVICES.get() == analysis_runs.AnalysisServices(
        analysis_claim=services.analysis_claim, analysis_progress=services.analysis_progress,
        analysis_fail=services.analysis_fail, analysis_takeover_seconds=services.analysis_takeover_seconds)
    assert ggp_manager.SERVICES.get() == ggp_manager.ManagerServices(
        move_submit=services.move_submit, move_replace=services.move_replace,
        ggp_match_call_off=services.ggp_match_call_off, clock_play_sent=services.clock_play_sent)


def test_wiring_again_changes_nothing():
    before = {name: handoff.get() for name, handoff in HANDOFFS.items()}
    wiring.wire()
    assert {name: handoff.get() for name, handoff in HANDOFFS.items()} == before


@pytest.mark.parametrize("name, module", [("bots", "games.computer.bots"), ("flagfall", "games.services.flagfall"),
                                          ("analysis_runs", "games.computer.analysis_runs"),
                                          ("manager", "games.ggp.manager")])
def test_each_hand_off_not_set_names_its_module(monkeypatch, name, module):
    handoff_unset(monkeypatch, HANDOFFS[name])
    with pytest.raises(HandoffNotSet, match=module):
        HANDOFFS[name].get()


def test_the_computers_turn_not_handed_move_submit_says_so(monkeypatch):
    handoff_unset(monkeypatch, bots.SERVICES)
    with pytest.raises(HandoffNotSet, match="BotServices: move_submit"):
        bots._submit_turn(None, "a1")


def test_the_analyses_runner_not_handed_its_queue_says_so(monkeypatch):
    handoff_unset(monkeypatch, analysis_runs.SERVICES)
    with pytest.raises(HandoffNotSet, match="AnalysisServices: analysis_claim"):
        analysis_runs.run_here()


def test_the_clock_sweep_not_handed_its_services_says_so_as_it_starts(monkeypatch, settings):
    settings.CLOCK_SWEEP_SECONDS = 30
    handoff_unset(monkeypatch, flagfall.SERVICES)
    monkeypatch.setattr(flagfall, "_sweeping", set())
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(HandoffNotSet, match="FlagfallServices: clock_flag"):
            flagfall.start_sweeping(loop)
        assert loop not in flagfall._sweeping
    finally:
        loop.close()


def test_a_process_that_only_sets_django_up_has_every_hand_off_set(tmp_path):
    """As a worker or a management command that never imports ``games.services`` itself."""
    code = ("import django; django.setup()\n"
            "from games.computer import analysis_runs, bots\n"
            "from games.ggp import manager\n"
            "from games.services import flagfall\n"
            "print(all(m.SERVICES.is_set for m in (analysis_runs, bots, manager, flagfall)))\n")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": f"sqlite:///{tmp_path}/db"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          cwd=Path(__file__).resolve().parents[3])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
