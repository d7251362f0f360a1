"""A computer that thinks until the test lets it answer: its turns are played by the real
event-loop path (``COMPUTER_WORKERS="pool"``), in a thread of the test's process, each one
held (``thinking`` lists the versions it is thinking about) until ``answer`` is set; then it
plays what ``choose`` picks."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

from games.computer import bots
from tests.support.waits import EVENT_SECONDS


class HeldComputer:
    def __init__(self, monkeypatch, choose=lambda actions: random.Random(0).choice(actions)) -> None:
        self.thinking: list[int] = []
        self.answer = threading.Event()
        self.pool = ThreadPoolExecutor(max_workers=2)
        self._choose = choose
        monkeypatch.setattr(bots, "_process_pool", lambda: self.pool)
        monkeypatch.setattr(bots, "_think_args", self._think)

    def _think(self, turn):
        def held():
            self.thinking.append(turn.version)
            self.answer.wait(EVENT_SECONDS)
            return self._choose(turn.game.legal_actions(turn.state))
        return held
