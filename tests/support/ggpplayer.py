"""A GGP player for tests: a small HTTP server (threads) that reads the GDL it is sent in
START with the GDL reasoner (``games.ggp.gdl.reasoner.Reasoner``), follows every joint move,
and answers random legal moves; at chosen steps it misbehaves, as GGP players do.

``GGPTestPlayer(misbehave={3: "late", 5: "illegal"})``: on its 3rd turn (a PLAY where it has a
choice) it answers after the play clock, on its 5th with a move that is not legal; ``"silent"``
never answers (until the server stops); ``always="silent"`` misbehaves at every PLAY;
``busy=True`` answers START (and INFO) with ``busy``; ``hold_noops=gate`` answers a PLAY where it
has no choice only once ``gate`` is set (a player that uses its play clock on noop turns; it sets
``noop_held`` while it waits). ``player.moves``: its turns' moves.
``player.messages`` lists the kinds received in order (``INFO``, ``START``, ``PLAY``, ...),
``player.done`` is set at STOP or ABORT, ``player.final`` holds the last state then.
"""

from __future__ import annotations

import random
import threading
import time

from tests.support.ggphttp import PlayerServer

ILLEGAL = "(mark 9 9 9 9 q)"


class GGPTestPlayer:
    def __init__(self, *, misbehave: dict[int, str] | None = None, always: str = "", busy: bool = False,
                 seed: int = 0, grace: float = 1.0, hold_noops: threading.Event | None = None) -> None:
        self.misbehave = misbehave or {}
        self.hold_noops = hold_noops
        self.noop_held = threading.Event()
        self.busy = busy
        self.rng = random.Random(seed)
        self.grace = grace
        self.messages: list[str] = []
        self.moves: list[str] = []  # the moves it answered to PLAY, in order
        self.done = threading.Event()
        self.stopped = threading.Event()  # the server stops: a silent answer returns
        self.final: frozenset[str] | None = None
        self.reasoner = None
        self.role = None
        self.state = None
        self.play_clock = 0
        self.turns = 0
        self.always = always
        self.lock = threading.Lock()
        self.server = PlayerServer(self.answer)

    @property
    def url(self) -> str:
        return self.server.url

    def __enter__(self) -> GGPTestPlayer:
        self.server.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.server.__exit__(*exc)

    def answer(self, body: str) -> str:
        from games.ggp.gdl import kif

        message = kif.parse_term(body)
        kind = (message if isinstance(message, str) else message[0]).upper()
        with self.lock:
            self.messages.append(kind)
            if kind == "INFO":
                return "busy" if self.busy else "((name tester) (status available))"
            if kind == "START":
                return self._start(message)
            if kind in {"PLAY", "STOP"}:
                self._follow(message[2])
            if kind == "STOP":
                self.final = self.state
                self.done.set()
                return "done"
            if kind == "ABORT":
                self.done.set()
                return "aborted"
            legal = self.reasoner.legal(self.state, self.role)
            move = self.rng.choice(legal)
            behaviour = self.always
            if legal != ["noop"]:  # its own turn: the turns it misbehaves at count these
                self.turns += 1
                behaviour = behaviour or self.misbehave.get(self.turns, "")
                self.moves.append(move)
            started = time.monotonic()
        if behaviour == "late":
            time.sleep(max(self.play_clock - (time.monotonic() - started), 0) + self.grace / 2)
        elif behaviour == "illegal":
            return ILLEGAL
        elif behaviour == "silent":
            self.stopped.wait()
        elif legal == ["noop"] and self.hold_noops is not None:
            self.noop_held.set()
            self.hold_noops.wait()
        return move

    def _start(self, message) -> str:
        from games.ggp.gdl import kif
        from games.ggp.gdl.reasoner import Reasoner

        if self.busy:
            return "busy"
        _, _, role, rules, _, play_clock = message
        self.reasoner = Reasoner(" ".join(kif.to_text(rule) for rule in rules))
        self.role, self.play_clock = role, int(play_clock)
        self.state = self.reasoner.initial()
        return "ready"

    def _follow(self, joint) -> None:
        from games.ggp.gdl import kif

        if joint == "nil" or self.reasoner is None:
            return
        self.state = self.reasoner.next(self.state, {role: kif.to_text(move)
                                                     for role, move in zip(self.reasoner.roles, joint)})
