"""The boardgame.io peer: its node server (benchmarks/bgio/server.js) and a driver for it.

The driver speaks boardgame.io 0.50's socket.io protocol as its own client does (read from
``node_modules/boardgame.io/src/client/transport/socketio.ts`` and
``src/server/transport/socketio.ts``): on the namespace ``/<game name>`` a client emits
``sync (matchID, playerID, credentials, numPlayers)`` and gets ``sync (matchID, {state, log,
filteredMetadata, initialState})``; a move is ``update (action, stateID, matchID, playerID)``
with ``action = {type: "MAKE_MOVE", payload: {type, args, playerID, credentials}}``; every
client of the match, the mover included, then gets ``update (matchID, state, deltalog)``. An
illegal or stale action is dropped by the server without an answer. Matches are made and
joined through the lobby API (``POST /games/<name>/create``, ``.../<id>/join``), so players
move with credentials, as Boardhall's move with a session.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.load.timing import Pace, next_or_resync, settle
from tests.support.live import LiveServer, free_port  # no Django settings needed

GAME = "nine-board-tictactoe"
HERE = Path(__file__).resolve().parents[1] / "bgio"


# -- the server (used by benchmarks/moves.py) -----------------------------------------------------

def node_version() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "none"


def ensure_installed() -> None:
    """``npm ci`` into benchmarks/bgio when boardgame.io is not there yet (pinned by the lock file)."""
    if not (HERE / "node_modules" / "boardgame.io" / "package.json").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True,
                       stdout=subprocess.DEVNULL)


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
        return True
    except OSError:
        return False


class NodeServer(LiveServer):
    """boardgame.io's server in a node child process; stopped as the tests stop Daphne."""

    def __init__(self, storage: str) -> None:
        super().__init__()
        self.storage = storage  # "memory" or "flatfile"
        self.api_port = free_port()
        self.dir = tempfile.mkdtemp(prefix="bgio-flatfile-")

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    def start(self) -> "NodeServer":
        ensure_installed()
        self.log = open(Path(tempfile.gettempdir()) / f"bgio-{self.port}.log", "w")
        self.process = subprocess.Popen(
            ["node", "server.js", str(self.port), str(self.api_port), self.storage, self.dir],
            cwd=HERE, stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(300):
            if self.process.poll() is not None:
                raise RuntimeError(f"node exited early; see {self.log.name}")
            if _listening(self.port) and _listening(self.api_port):
                return self
            time.sleep(0.1)
        raise RuntimeError("the boardgame.io server did not start within 30 s")

    def stop(self) -> None:
        super().stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def pid(self) -> int:
        return self.process.pid


async def create_matches(api_url: str, count: int, parallel: int = 16) -> list[dict]:
    """``count`` two-player matches, both seats joined: ``{"id", "credentials": [p0, p1]}``."""
    import aiohttp

    made: list[dict] = []
    gate = asyncio.Semaphore(parallel)

    async def one(session) -> None:
        async with gate:
            async with session.post(f"{api_url}/games/{GAME}/create", json={"numPlayers": 2}) as r:
                match_id = (await r.json())["matchID"]
            credentials = []
            for seat in ("0", "1"):
                async with session.post(f"{api_url}/games/{GAME}/{match_id}/join",
                                        json={"playerID": seat, "playerName": f"p{seat}"}) as r:
                    credentials.append((await r.json())["playerCredentials"])
            made.append({"id": match_id, "credentials": credentials})

    async with aiohttp.ClientSession() as session:
        await asyncio.gather(*(one(session) for _ in range(count)))
    return made


# -- the driver (used by benchmarks/load/client.py) -----------------------------------------------

def legal_cells(G: dict) -> list[int]:
    cells, board = G["cells"], G["board"]
    free = board is None or all(c is not None for c in cells[board * 9:board * 9 + 9])
    return [i for i, c in enumerate(cells) if c is None and (free or i // 9 == board)]


class RawSocketIO:
    """The few parts of socket.io 4 (Engine.IO 4, socket.io protocol 5) the driver needs, over a
    plain ``websockets`` connection: the same client library as Boardhall's driver, much lighter
    than python-socketio. Text frames only: ``0{...}`` opens, ``2``/``3`` are the server's ping
    and our pong, ``40/ns,`` joins a namespace, ``42/ns,[event, ...args]`` is an event."""

    def __init__(self, namespace: str, inbox: asyncio.Queue) -> None:
        self.namespace, self.inbox = namespace, inbox
        self.prefix = f"42{namespace},"

    async def connect(self, url: str) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(f"ws{url[4:]}/socket.io/?EIO=4&transport=websocket", open_timeout=30,
                                max_queue=None, ping_interval=None)
        if not (await self.ws.recv()).startswith("0"):
            raise RuntimeError("no Engine.IO open packet")
        await self.ws.send(f"40{self.namespace},")
        while not (await self.ws.recv()).startswith(f"40{self.namespace},"):
            pass
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            if frame == "2":
                await self.ws.send("3")
            elif frame.startswith(self.prefix):
                event, _match, payload, *_ = json.loads(frame[len(self.prefix):])
                if event in ("sync", "update"):
                    self.inbox.put_nowait(payload["state"] if event == "sync" else payload)

    async def emit(self, event: str, args: tuple, namespace: str) -> None:
        await self.ws.send(self.prefix + json.dumps([event, *args]))

    async def disconnect(self) -> None:
        self.reader.cancel()
        await self.ws.close()


async def _open(url: str, match_id: str, player_id, credentials, inbox: asyncio.Queue, raw: bool):
    namespace = f"/{GAME}"
    if raw:
        sio = RawSocketIO(namespace, inbox)
        await sio.connect(url)
        await sio.emit("sync", (match_id, player_id, credentials, 2), namespace=namespace)
        return sio
    import socketio

    sio = socketio.AsyncClient(reconnection=False)
    sio.on("sync", lambda _match, info: inbox.put_nowait(info["state"]), namespace=namespace)
    sio.on("update", lambda _match, state, _log=None: inbox.put_nowait(state), namespace=namespace)
    await sio.connect(url, namespaces=[namespace], transports=["websocket"], wait_timeout=30)
    await sio.emit("sync", (match_id, player_id, credentials, 2), namespace=namespace)
    return sio


async def bgio_slot(slot: dict, clock, rec, rng, think) -> None:
    """``slot``: player_url, spectator_url, matches (``{"id", "credentials"}``)."""
    namespace = f"/{GAME}"
    pace = Pace(think, rng)
    for match in slot["matches"]:
        if clock.stopped:
            return
        match_id = match["id"]
        sent: dict[int, float] = {}
        clients, inboxes = [], []
        try:
            try:
                for seat in (None, None, "0", "1"):
                    inbox: asyncio.Queue = asyncio.Queue()
                    credentials = match["credentials"][int(seat)] if seat else None
                    url = slot["player_url"] if seat else slot["spectator_url"]
                    clients.append(await _open(url, match_id, seat, credentials, inbox, slot.get("raw", False)))
                    inboxes.append(inbox)
            except Exception as exc:
                rec.failed_handshakes += 1
                rec.error(f"handshake: {exc!r}")
                await asyncio.sleep(1)
                continue

            # As for Boardhall: nobody moves before every client has its first state (here too
            # the server sends it before it adds the client to the match's listeners).
            for _ in range(3000):
                if not any(inbox.empty() for inbox in inboxes):
                    break
                await asyncio.sleep(0.01)

            async def player(sio, inbox: asyncio.Queue, seat: str, credentials: str) -> None:
                mine: set[int] = set()
                while True:
                    state = await next_or_resync(inbox.get, lambda: sio.emit(
                        "sync", (match_id, seat, credentials, 2), namespace=namespace), rec, clock)
                    if state is None:
                        return
                    state_id, now = state["_stateID"], time.perf_counter()
                    if state_id in mine:
                        rec.ack(now - sent[state_id], now <= clock.deadline)
                    if state["ctx"].get("gameover") is not None or clock.stopped:
                        return
                    if state["ctx"]["currentPlayer"] == seat:
                        await pace.wait()
                        action = {"type": "MAKE_MOVE", "payload": {
                            "type": "play", "args": [rng.choice(legal_cells(state["G"]))],
                            "playerID": seat, "credentials": credentials}}
                        mine.add(state_id + 1)
                        sent[state_id + 1] = time.perf_counter()
                        await sio.emit("update", (action, state_id, match_id, seat), namespace=namespace)

            async def spectator(inbox: asyncio.Queue) -> None:
                while True:
                    state = await inbox.get()
                    if state["_stateID"] in sent:
                        rec.delivery(time.perf_counter() - sent[state["_stateID"]])
                    if state["ctx"].get("gameover") is not None or clock.stopped:
                        return

            await settle([asyncio.ensure_future(player(clients[i], inboxes[i], str(i - 2), match["credentials"][i - 2]))
                          for i in (2, 3)],
                         [asyncio.ensure_future(spectator(inboxes[i])) for i in (0, 1)], rec)
        except Exception as exc:
            rec.error(repr(exc))
        finally:
            await asyncio.gather(*(sio.disconnect() for sio in clients), return_exceptions=True)
    rec.exhausted_slots += 1


if __name__ == "__main__":  # a quick look: python benchmarks/load/bgio.py
    server = NodeServer(os.environ.get("BGIO_STORAGE", "memory")).start()
    try:
        print(asyncio.run(create_matches(server.api_url, 2)))
    finally:
        server.stop()
