#!/usr/bin/env python3
"""A Boardhall bot that plays random legal actions, through the bot API (standard library only).

    BOARDHALL_TOKEN=bh_... python3 examples/random_bot.py --server http://127.0.0.1:8000

It accepts every challenge sent to it, plays each match that starts (a thread per match) and,
with ``--games N``, stops after N matches have ended. The token comes from the environment, so
it shows in no process list or shell history.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import threading
from urllib.parse import urlsplit


class Api:
    def __init__(self, server: str, token: str) -> None:
        parts = urlsplit(server)
        self.host, self.port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
        self.connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        """One call: its status and JSON answer."""
        connection = self.connection_class(self.host, self.port, timeout=30)
        try:
            connection.request(method, f"/api{path}", None if method == "GET" else json.dumps(body or {}),
                               self.headers)
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        finally:
            connection.close()

    def stream(self, path: str):
        """Each JSON line of an NDJSON stream (keep-alive empty lines skipped), until it ends."""
        connection = self.connection_class(self.host, self.port, timeout=60)
        try:
            connection.request("GET", f"/api{path}", headers=self.headers)
            response = connection.getresponse()
            if response.status != 200:
                raise RuntimeError(f"{path}: {response.status} {response.read().decode()}")
            for raw in response:
                if raw.strip():
                    yield json.loads(raw)
        finally:
            connection.close()


def play(api: Api, match_id: int, rng: random.Random) -> None:
    """Play one match: on every state where one of our roles is to move, a random legal action."""
    acted = -1  # the version last moved at: a state may come again at the same version (an offer)
    for event in api.stream(f"/matches/{match_id}/stream"):
        if event["type"] not in ("gameFull", "gameState"):
            continue
        for actions in event["you"]["legal"].values():
            if actions and event["version"] > acted:
                acted = event["version"]
                status, answer = api.call("POST", f"/matches/{match_id}/move",
                                          {"action": rng.choice(actions), "version": event["version"]})
                if status != 200 and answer.get("code") not in ("stale_version", "not_your_turn", "match_over"):
                    print(f"match {match_id}: move refused: {answer}", file=sys.stderr)
        if event["match"]["status"] in ("finished", "aborted"):
            return


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--games", type=int, default=0, help="stop after this many matches (0: never)")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    token = os.environ.get("BOARDHALL_TOKEN")
    if not token:
        parser.error("set BOARDHALL_TOKEN to a token made on your account page")
    api, rng = Api(args.server, token), random.Random(args.seed)
    status, account = api.call("GET", "/account")
    if status != 200:
        parser.error(f"the server refused the token: {account.get('message')}")
    me = account["id"]
    playing: dict[int, threading.Thread] = {}
    finished = 0
    for event in api.stream("/stream/event"):
        if event["type"] == "challenge" and event["challenge"]["to"]["id"] == me:
            api.call("POST", f"/challenges/{event['challenge']['id']}/accept")
        elif event["type"] == "gameStart" and event["game"]["id"] not in playing:
            match_id = event["game"]["id"]
            playing[match_id] = threading.Thread(target=play, args=(api, match_id, random.Random(rng.random())),
                                                 daemon=True)
            playing[match_id].start()
            print(f"playing match {match_id}", flush=True)
        elif event["type"] == "gameFinish":
            finished += 1
            print(f"match {event['game']['id']} over: {event['game']['result']}", flush=True)
            thread = playing.pop(event["game"]["id"], None)
            if thread is not None:
                thread.join(timeout=30)
            if args.games and finished >= args.games:
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
