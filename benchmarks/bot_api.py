"""Moves per second over the bot API beside the same load over the match socket, on one Daphne.

    .venv/bin/python benchmarks/bot_api.py [--matches 10] [--seconds 20]

One Daphne process (SQLite in a fresh file, the in-memory channel layer, DEBUG off, the API's
per-token budget lifted). Each of ``--matches`` nine-board tic-tac-toe matches has two players
who answer the moment their state arrives with a random legal action, for ``--seconds``; when a
match ends its players go on to their next one. ``api``: each player reads its match stream and
posts each move on a kept-alive HTTP connection (as examples/random_bot.py does, less the new
connection per call). ``socket``: each player is a match page's socket. Moves per second: the
moves stored, over the seconds played. Client threads share the machine with the server: compare
the two rows of one run, not runs on different machines.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DB_FILE = Path(tempfile.mkdtemp(prefix="boardhall-bench-botapi-")) / "db.sqlite3"
os.environ.update({"DATABASE_URL": f"sqlite:///{DB_FILE}", "DJANGO_SETTINGS_MODULE": "config.settings"})
os.environ.pop("REDIS_URL", None)

import django  # noqa: E402  (after the environment it reads)

django.setup()

from django.core.management import call_command  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from botapi.services import token_create  # noqa: E402
from games.models import Match  # noqa: E402
from tests.support.live import LiveServer  # noqa: E402
from tests.support.players import make_accounts, session_cookie, start_match  # noqa: E402

GAME = "nine-board-tictactoe"
OVER = ("finished", "aborted")
MATCHES_PER_PAIR = 30  # more than a pair finishes in a run


def api_player(server, secret: str, match_ids: list[int], deadline: float, seed: int) -> None:
    rng = random.Random(seed)
    host = f"127.0.0.1:{server.port}"
    headers = {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"}
    moves = http.client.HTTPConnection(host, timeout=30)
    for match_id in match_ids:
        stream = http.client.HTTPConnection(host, timeout=30)
        stream.request("GET", f"/api/matches/{match_id}/stream", headers=headers)
        response = stream.getresponse()
        for raw in response:
            if time.monotonic() > deadline:
                stream.close()
                return
            if not raw.strip():
                continue
            event = json.loads(raw)
            if event["type"] not in ("gameFull", "gameState"):
                continue
            if event["match"]["status"] in OVER:
                break
            for actions in event["you"]["legal"].values():
                moves.request("POST", f"/api/matches/{match_id}/move",
                              json.dumps({"action": rng.choice(actions), "version": event["version"]}), headers)
                moves.getresponse().read()
        stream.close()


def socket_player(server, cookie: str, match_ids: list[int], deadline: float, seed: int) -> None:
    rng = random.Random(seed)
    for match_id in match_ids:
        with connect(f"{server.ws_url}/ws/matches/{match_id}/", origin=server.url,
                     additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=30) as ws:
            while True:
                if time.monotonic() > deadline:
                    return
                message = json.loads(ws.recv(timeout=30))
                if message["type"] != "state":
                    continue
                if message["match"]["status"] in OVER:
                    break
                for actions in message["you"]["legal"].values():
                    ws.send(json.dumps({"type": "action", "action": rng.choice(actions),
                                        "version": message["version"]}))


def run(server, mode: str, pairs: int, seconds: float) -> dict:
    players = make_accounts(2 * pairs, f"{mode}-")
    threads, all_matches = [], []
    for p in range(pairs):
        x, o = players[2 * p], players[2 * p + 1]
        matches = [start_match(GAME, [x, o]).pk for _ in range(MATCHES_PER_PAIR)]
        all_matches += matches
        for n, user in enumerate((x, o)):
            credential = (token_create(user=user, name="bench", scopes={"play", "read"})[1] if mode == "api"
                          else session_cookie(user))
            threads.append((api_player if mode == "api" else socket_player, credential, matches, 2 * p + n))
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    running = [threading.Thread(target=target, args=(server, credential, matches, deadline, seed), daemon=True)
               for target, credential, matches, seed in threads]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join(seconds + 60)
    elapsed = time.monotonic() - started
    moves = sum(Match.objects.filter(pk__in=all_matches).values_list("plies", flat=True))
    return {"mode": mode, "moves": moves, "seconds": elapsed, "per_second": moves / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    server = LiveServer(env={"DEBUG": "0", "BOT_API_BURST": "1000000", "BOT_API_CALLS_PER_SECOND": "1000000",
                             "BOT_API_STREAMS": "1000", "WS_MAX_SOCKETS": "100000",
                             "WS_RATE_BURST": "1000000", "WS_RATE_PER_SECOND": "1000000"})
    server.start()
    try:
        print(f"load average before: {os.getloadavg()[0]:.1f}; {args.matches} matches, {args.seconds:.0f} s each")
        print("| path | moves | seconds | moves/s |\n|---|---|---|---|")
        for mode in ("api", "socket"):
            result = run(server, mode, args.matches, args.seconds)
            print(f"| {mode} | {result['moves']} | {result['seconds']:.1f} | {result['per_second']:.0f} |", flush=True)
    finally:
        server.close()


if __name__ == "__main__":
    main()
