"""The cluster of ``deploy/cluster.py`` for a test module: started once, removed afterwards,
with what the tests need of it: one-off commands on a host, the stored moves, pages that play
through its load balancer and come back after any close."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field

import psycopg
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.support.live import ROOT

sys.path.insert(0, str(ROOT / "deploy"))
import cluster as deploy_cluster  # deploy/cluster.py: not a package


def needs_namespaces() -> None:
    """Skip, saying why, where this machine cannot make network namespaces (CI can, and turns
    the skip into a failure)."""
    if os.geteuid() != 0:
        pytest.skip("the cluster tests make network namespaces: they need root")
    missing = [name for name in ("ip", "nginx", "redis-server", "redis-cli", "runuser", "unshare")
               if not (shutil.which(name) or os.path.exists(f"/usr/sbin/{name}"))]
    if missing:
        pytest.skip(f"the cluster tests need {', '.join(missing)}")
    probe = f"{deploy_cluster.PREFIX}probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"ip netns is not available here: {made.stderr.strip()}")
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)


def shell(cluster: deploy_cluster.Cluster, code: str, host: str = "app2"):
    """Run ``code`` in Django's shell on ``host`` (as an operator's one-off command) and return
    the JSON it printed last."""
    return json.loads(cluster.manage(host, "shell", "--no-imports", "-c", code).strip().splitlines()[-1])


def stored(cluster: deploy_cluster.Cluster, match_ids: list[int]) -> dict:
    """Each match's stored moves [(ply, action)], version, status, game and state, read from
    the database host."""
    url = f"postgresql://postgres@{deploy_cluster.address('db')}:{deploy_cluster.PG_PORT}/boardhall"
    with psycopg.connect(url) as connection:
        # One snapshot for both reads: a worker may still be storing the computer's moves.
        connection.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        matches = {row[0]: {"version": row[1], "status": row[2], "game": row[3], "state": row[4], "moves": []}
                   for row in connection.execute(
                       "SELECT id, version, status, game, state FROM games_match WHERE id = ANY(%s)", [match_ids])}
        for match_id, ply, action in connection.execute(
                "SELECT match_id, ply, action FROM games_move WHERE match_id = ANY(%s) ORDER BY match_id, ply",
                [match_ids]):
            matches[match_id]["moves"].append((ply, action))
    return matches


@dataclass
class Play:
    """What the pages saw, and when to stop."""

    acknowledged: list[tuple[int, int, str]] = field(default_factory=list)  # (match, ply, action)
    others: list[tuple[int, int, float]] = field(default_factory=list)  # (match, ply, when): moves not this page's
    closes: list[int | None] = field(default_factory=list)
    reconnect_seconds: list[float] = field(default_factory=list)
    told: list[str] = field(default_factory=list)  # the error codes the test expects, as they came
    expected_errors: frozenset[str] = frozenset()
    problems: list[str] = field(default_factory=list)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def problem(self, text: str) -> None:
        self.problems.append(text)
        self.done.set()


async def page(url: str, ws_url: str, match_id: int, cookie: str, seed: int, play: Play, on_state) -> None:
    """A match page's socket, as static/js/socket.js runs it: answer every newer state with a
    random legal action; after any close or refused connection, connect again through the load
    balancer, say which version it has ("sync") and carry on from the state it gets.
    ``on_state(match_id, message)`` sees every newer state."""
    rng = random.Random(seed)
    sent: dict[int, str] = {}
    seen = -1
    closed_at = None
    while not play.done.is_set():
        try:
            async with connect(f"{ws_url}/ws/matches/{match_id}/", origin=url, open_timeout=10,
                               additional_headers={"Cookie": f"sessionid={cookie}"}) as ws:
                if seen >= 0:
                    await ws.send(json.dumps({"type": "sync", "version": seen}))
                while True:
                    message = json.loads(await ws.recv())
                    if message["type"] == "error":
                        if message.get("code") in play.expected_errors:
                            play.told.append(message["code"])
                        else:
                            play.problem(f"match {match_id}: error {message}")
                    if message["type"] != "state":
                        continue
                    if closed_at is not None:
                        play.reconnect_seconds.append(time.monotonic() - closed_at)
                        closed_at = None
                        if message["version"] < seen:
                            play.problem(f"match {match_id}: version {message['version']} after {seen}")
                    elif message["version"] <= seen:
                        continue
                    seen = message["version"]
                    last = message["last_move"]
                    if last:
                        if sent.get(last["ply"]) == last["action"]:
                            sent.pop(last["ply"])
                            play.acknowledged.append((match_id, last["ply"], last["action"]))
                        else:
                            play.others.append((match_id, last["ply"], time.monotonic()))
                    on_state(match_id, message)
                    if message["match"]["status"] != "active":
                        return
                    legal = [a for actions in message["you"]["legal"].values() for a in actions]
                    if legal:
                        sent[seen + 1] = rng.choice(legal)
                        await ws.send(json.dumps({"type": "action", "action": sent[seen + 1], "version": seen}))
        except (ConnectionClosed, InvalidStatus, OSError, TimeoutError) as closed:
            code = closed.rcvd.code if isinstance(closed, ConnectionClosed) and closed.rcvd else None
            if closed_at is None:
                play.closes.append(code)
                closed_at = time.monotonic()
            await asyncio.sleep(0.05)  # before the next try; a browser's page waits 0.5 s
