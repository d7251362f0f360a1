"""Rating farming, played from outside: a main account and one fresh second account try to lift
the main account's rating, and the main account's rating is printed before and after each kind.

    .venv/bin/python benchmarks/farming.py                 # starts its own server (SQLite, a temporary directory)
    .venv/bin/python benchmarks/farming.py --url http://127.0.0.1:8000
    .venv/bin/python benchmarks/farming.py --quick --json  # two matches of each kind, one JSON line

Both accounts sign up through the sign-up form; the main account creates each rated
Nine-Board Tic-Tac-Toe match as O from the lobby form, the second account joins as X (X moves
first) and the two talk to the match sockets as pages do. The kinds, in this order, all with the
same two accounts:

- ``resign0``: X resigns before any move;
- ``resign2``: X and O play one move each, then X resigns;
- ``flag0``: a 1+0 clock, and X never makes its first move (one match at a time: 30 s each);
- ``draws``: X and O play one move each (no draw before everybody moved), then X offers a draw and O accepts;

For each match the script reads the main account's seat from the last state its socket
received: the rating it had, the rating after (empty when the result did not count) and which
opponents' results did not count (the pair limit). Needs the ``websockets`` package only.
Figures: docs/benchmarks.md ("Rating farming").
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
GAME = "nine-board-tictactoe"
KINDS = ("resign0", "resign2", "flag0", "draws")
FULL = {"resign0": 8, "resign2": 8, "flag0": 8, "draws": 10}
QUICK = {kind: 2 for kind in KINDS}
MATCH_SECONDS = 150  # the longest a match may take to end (a 1+0 flag falls after 60 s)
SYNC_SECONDS = 10
RETRIES = 3


class Account:
    """A signed-up player of the server at ``base``: its session is in its own cookie jar."""

    def __init__(self, base: str, name: str) -> None:
        self.base, self.name = base, name
        self.jar = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.get("/signup/")
        self.post("/signup/", {"username": name, "display_name": name, "password": secrets.token_urlsafe(16)})
        if not self.cookie("sessionid"):
            raise RuntimeError(f"signing up {name} failed")

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def get(self, path: str) -> str:
        with self.http.open(self.base + path, timeout=30) as response:
            return response.read().decode()

    def post(self, path: str, fields: dict) -> str:
        """POST a form as a page does (with the CSRF token); the URL it ends on, redirects followed."""
        body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": self.cookie("csrftoken") or ""}).encode()
        request = urllib.request.Request(self.base + path, data=body, headers={"Origin": self.base,
                                                                               "Referer": self.base + path})
        with self.http.open(request, timeout=30) as response:
            return response.geturl()

    def socket(self, match_id: int):
        return connect(f"ws{self.base[4:]}/ws/matches/{match_id}/", origin=self.base,
                       additional_headers={"Cookie": f"sessionid={self.cookie('sessionid')}"},
                       open_timeout=30, ping_interval=None)


CREATE_TRIES, CREATE_PAUSE = 30, 5.0


def create_match(main: Account, second: Account, timed: bool) -> int:
    """A rated match of ``main`` (O) that ``second`` (X) joined, untimed or 1+0: it has started."""
    clock = {"clock": "custom", "clock_minutes": 1, "clock_increment": 0} if timed else {"clock": "untimed"}
    for _ in range(CREATE_TRIES):  # the site limits creations a minute: wait for the next one
        url = main.post("/matches/new/", {"game": GAME, "role": "oPlayer", "opponents": "people", "rated": "on", **clock})
        found = re.search(r"/matches/(\d+)/$", url)
        if found:
            break
        time.sleep(CREATE_PAUSE)
    else:
        raise RuntimeError(f"creating a match ended on {url}")
    match_id = int(found[1])
    second.post(f"/matches/{match_id}/join/", {"role": "xPlayer"})
    return match_id


class Refused(Exception):
    def __init__(self, message: dict) -> None:
        super().__init__(f"refused: {message}")
        self.code = message.get("code")


async def next_state(ws) -> dict:
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "state":
            return message
        if message["type"] == "error":
            raise Refused(message)


def moved_on(version: int):
    """A state of ``version`` or later, or of a match that is over."""
    return lambda state: state["version"] >= version or state["match"]["status"] != "active"


async def state_where(ws, wanted) -> dict:
    """The first state for which ``wanted(state)`` holds, the ones before it skipped. A state
    can be lost on the way (the channel layer delivers at most once): after SYNC_SECONDS of
    silence the script asks for the current state, as pages do."""
    deadline = time.monotonic() + MATCH_SECONDS
    while True:
        try:
            state = await asyncio.wait_for(next_state(ws), SYNC_SECONDS)
        except asyncio.TimeoutError:
            if time.monotonic() > deadline:
                raise
            await ws.send('{"type": "sync"}')
            continue
        if wanted(state):
            return state


async def until_over(ws, state: dict) -> dict:
    """The first state (from ``state`` on) in which the match is no longer active."""
    while state["match"]["status"] == "active":
        state = await state_where(ws, moved_on(state["version"] + 1))
    return state


def first_legal(state: dict) -> dict:
    """The message that plays the first legal action of the mover's ``state``."""
    action = next(a for actions in state["you"]["legal"].values() for a in actions)
    return {"type": "action", "action": action, "version": state["version"]}


async def act(ws, message: dict, wanted) -> dict:
    """Send ``message``; the first state after it for which ``wanted(state)`` holds. A refusal
    raises, except a failure on the server's side ("nothing was changed"), which is sent again."""
    for attempt in range(RETRIES):
        await ws.send(json.dumps(message))
        try:
            return await state_where(ws, wanted)
        except Refused as refused:
            if refused.code != "server_error" or attempt == RETRIES - 1:
                raise
            await asyncio.sleep(1)
    raise AssertionError("unreachable")


async def play(kind: str, main: Account, second: Account, match_id: int) -> dict:
    """Play one match of ``kind``; the main account's seat at its start and at its end."""
    async with main.socket(match_id) as o_ws, second.socket(match_id) as x_ws:
        o_state, x_state = await next_state(o_ws), await next_state(x_ws)
        start = seat_of(o_state)
        if kind in ("resign2", "draws"):  # a move each: a draw is offered only once everybody moved
            x_state = await act(x_ws, first_legal(x_state), moved_on(x_state["version"] + 1))
            o_view = await state_where(o_ws, moved_on(x_state["version"]))
            o_state = await act(o_ws, first_legal(o_view), moved_on(o_view["version"] + 1))
            x_state = await state_where(x_ws, moved_on(o_state["version"]))
        if kind in ("resign0", "resign2"):
            await x_ws.send('{"type": "resign"}')
        elif kind == "draws":
            offered = await act(x_ws, {"type": "draw_offer"}, lambda s: "xPlayer" in s["match"]["offers"]["draw"])
            await state_where(o_ws, lambda s: "xPlayer" in s["match"]["offers"]["draw"] or s["version"] > offered["version"])
            await o_ws.send('{"type": "draw_accept"}')
        end = await until_over(o_ws, o_state)
    return {"status": end["match"]["status"], "start": start, "end": seat_of(end)}


def seat_of(state: dict) -> dict:
    seat = next(s for s in state["match"]["seats"] if s["role"] == "oPlayer")
    return {key: seat.get(key) for key in ("rating", "provisional", "rating_after", "unrated_against")}


async def farm(base: str, counts: dict[str, int]) -> dict:
    tag = secrets.token_hex(3)
    main, second = Account(base, f"main_{tag}"), Account(base, f"second_{tag}")
    kinds = {}
    for kind, count in counts.items():
        # One at a time: a player has one real-time match at most and a few waiting.
        results = [await play(kind, main, second, create_match(main, second, kind == "flag0")) for _ in range(count)]
        changes = [None if r["end"]["rating_after"] is None else r["end"]["rating_after"] - r["end"]["rating"]
                   for r in results]
        before = results[0]["start"]["rating"]
        kinds[kind] = {
            "matches": count,
            "ended": {status: sum(r["status"] == status for r in results) for status in {r["status"] for r in results}},
            "counted": sum(c is not None for c in changes),
            "pair_limited": sum(bool(r["end"]["unrated_against"]) for r in results),
            "before": before, "after": before + sum(c for c in changes if c is not None), "changes": changes,
        }
    return {"server": base, "game": GAME, "main": main.name, "second": second.name, "kinds": kinds}


def report(result: dict) -> str:
    lines = [f"Rating farming on {result['server']} ({result['game']}, one main and one second account)",
             f"{'kind':8} {'matches':>7} {'ended':>22} {'counted':>7} {'pair limit':>10} {'main before':>11} "
             f"{'main after':>10}  changes"]
    for kind, k in result["kinds"].items():
        ended = ", ".join(f"{n} {status}" for status, n in sorted(k["ended"].items()))
        changes = " ".join("-" if c is None else f"{c:+d}" for c in k["changes"])
        lines.append(f"{kind:8} {k['matches']:>7} {ended:>22} {k['counted']:>7} {k['pair_limited']:>10} "
                     f"{k['before']:>11} {k['after']:>10}  {changes}")
    return "\n".join(lines)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def own_server():
    """A Daphne of this checkout on a throw-away SQLite database, stopped on the way out."""
    with tempfile.TemporaryDirectory(prefix="boardhall-farming-") as workdir:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/db.sqlite3", "DEBUG": "0",
               "SECRET_KEY": secrets.token_urlsafe(40), "DJANGO_SETTINGS_MODULE": "config.settings"}
        for name in ("REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"):
            env.pop(name, None)
        subprocess.run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT, env=env, check=True)
        port = free_port()
        with open(Path(workdir) / "daphne.log", "w") as log:
            server = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                                       "config.asgi:application"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            try:
                wait_for_port(port, server)
                yield f"http://127.0.0.1:{port}"
            except BaseException:
                print("The server's log ends:\n" + (Path(workdir) / "daphne.log").read_text()[-4000:], file=sys.stderr)
                raise
            finally:
                server.terminate()
                try:
                    server.wait(15)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()


def wait_for_port(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError("the server exited at start")
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not listen within 60 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running server (http://host:port); without it the script starts its own")
    parser.add_argument("--quick", action="store_true", help="two matches of each kind instead of 8, 8, 8 and 10")
    parser.add_argument("--json", action="store_true", help="print one JSON line instead of the table")
    args = parser.parse_args()
    counts = QUICK if args.quick else FULL
    if args.url:
        result = asyncio.run(farm(args.url.rstrip("/"), counts))
    else:
        with own_server() as base:
            result = asyncio.run(farm(base, counts))
    print(json.dumps(result) if args.json else report(result))


if __name__ == "__main__":
    main()
