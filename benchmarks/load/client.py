"""The load client: one asyncio process that plays matches over real sockets and times them.

Run by ``benchmarks/moves.py`` (never by hand): it reads a JSON spec on stdin and prints one JSON
line of raw samples on stdout, so several client processes can share one load and be merged.
No Django here; the only imports are ``websockets`` and, for the boardgame.io peer,
``socketio`` and ``aiohttp`` (``benchmarks/requirements.txt``).

Spec keys: ``kind`` ("boardhall" or "bgio"), ``mode`` ("play", "arrivals"), ``start_at`` (wall
clock second all client processes start at), ``seconds`` (how long players keep moving),
``think`` (null, or ``[distribution, mean seconds]`` with distribution "fixed" or "exp"),
``seed``, and ``slots``: one per concurrent match, each with its server addresses and the
matches it plays one after the other (see ``boardhall_slot`` and ``bgio.bgio_slot``).

The load shape: each slot opens its two spectators and its two players, the players answer their
state with a random legal action (at once, or when the slot's next move is due: ``Pace``) until
the game ends, then the slot moves on to its next match, until ``seconds`` have passed. For every
move: **ack**, the time from the mover's send to the mover receiving the new state;
**spectator**, the time from that send to each spectator receiving it.
"""

from __future__ import annotations

import asyncio
import json
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.load.timing import Clock, Pace, Recorder, next_or_resync, settle

# -- Boardhall ------------------------------------------------------------------------------------

def _boardhall_socket(base: str, match_id: int, cookie: str):
    from websockets.asyncio.client import connect

    return connect(f"ws{base[4:]}/ws/matches/{match_id}/", origin=base,
                   additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=30,
                   max_queue=None, ping_interval=None)


async def _next_state(ws, rec: Recorder) -> dict:
    """The next state message; presence and chat are skipped, errors are counted."""
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "state":
            return message
        if message["type"] == "error":
            rec.error(message)


async def boardhall_slot(slot: dict, clock: Clock, rec: Recorder, rng: random.Random, think) -> None:
    """``slot``: player_url, spectator_url, player_cookies (2), spectator_cookies (2), matches."""
    pace = Pace(think, rng)
    for match_id in slot["matches"]:
        if clock.stopped:
            return
        await boardhall_match(match_id, slot, clock, rec, rng, pace)
    rec.exhausted_slots += 1


async def boardhall_match(match_id: int, slot: dict, clock: Clock, rec: Recorder, rng, pace: Pace) -> None:
    sent: dict[int, float] = {}  # version a move leads to -> when it was sent
    sockets = []
    try:
        try:
            for cookie in slot["spectator_cookies"]:
                sockets.append(await _boardhall_socket(slot["spectator_url"], match_id, cookie).__aenter__())
            for cookie in slot["player_cookies"]:
                sockets.append(await _boardhall_socket(slot["player_url"], match_id, cookie).__aenter__())
        except Exception as exc:  # refused, timed out, reset: the handshake failed
            rec.failed_handshakes += 1
            rec.error(f"handshake: {exc!r}")
            await asyncio.sleep(1)  # then the slot's next match, without hammering the server
            return
        spectators, players = sockets[:2], sockets[2:]
        # Nobody moves before all four sockets have their first state: a socket that opens while
        # a move is made can miss that move's state (the server reads the state before joining
        # the match's group), which would measure the connect race, not the move path.
        firsts = await asyncio.wait_for(asyncio.gather(*(_next_state(ws, rec) for ws in sockets)), 30)
        pending = {id(ws): [first] for ws, first in zip(sockets, firsts)}

        async def receive(ws) -> dict:
            return pending[id(ws)].pop() if pending[id(ws)] else await _next_state(ws, rec)

        async def player(ws) -> None:
            sent_by_me: set[int] = set()
            seen = None
            while True:
                stalls = rec.stalls
                message = await next_or_resync(lambda: receive(ws),
                                               lambda: ws.send('{"type": "sync"}'), rec, clock)
                if message is None:
                    return
                version, now = message["version"], time.perf_counter()
                if rec.stalls != stalls:  # say what the resync found: a lost state or a lost move
                    rec.error(f"stall in match {match_id} after v{seen}, resync gave v{version}"
                              f"{' (my move at v%s was lost)' % seen if seen in sent_by_me else ''}")
                seen = version
                last = message["last_move"]
                if version in sent and last and message["you"]["roles"] == [last["role"]]:
                    rec.ack(now - sent[version], now <= clock.deadline)
                if message["match"]["status"] != "active" or clock.stopped:
                    return
                legal = [a for actions in message["you"]["legal"].values() for a in actions]
                if legal:
                    await pace.wait()
                    sent[version + 1] = time.perf_counter()
                    sent_by_me.add(version)
                    await ws.send(json.dumps({"type": "action", "action": rng.choice(legal), "version": version}))

        async def spectator(ws) -> None:
            while True:
                message = await receive(ws)
                if message["version"] in sent:
                    rec.delivery(time.perf_counter() - sent[message["version"]])
                if message["match"]["status"] != "active" or clock.stopped:
                    return

        await settle([asyncio.ensure_future(player(ws)) for ws in players],
                     [asyncio.ensure_future(spectator(ws)) for ws in spectators], rec)
    except Exception as exc:
        rec.error(repr(exc))
    finally:
        for ws in sockets:
            try:
                await ws.close()
            except Exception:
                pass


async def boardhall_computer_slot(slot: dict, clock: Clock, rec: Recorder, rng: random.Random) -> None:
    """A person against the computer: one socket, answering each of its turns at once.

    ``slot``: player_url, player_cookie, matches. Its moves are not timed (``rec`` of its own).
    """
    for match_id in slot["matches"]:
        if clock.stopped:
            return
        try:
            async with _boardhall_socket(slot["player_url"], match_id, slot["player_cookie"]) as ws:
                while not clock.stopped:
                    message = await asyncio.wait_for(_next_state(ws, rec), 60)
                    if message["match"]["status"] != "active":
                        break
                    legal = [a for actions in message["you"]["legal"].values() for a in actions]
                    if legal:
                        await ws.send(json.dumps({"type": "action", "action": rng.choice(legal),
                                                  "version": message["version"]}))
                        rec.ack(0.0, True)  # counts the person's moves
        except Exception as exc:
            rec.error(repr(exc))


async def boardhall_arrival(slot: dict, rec: Recorder, rng: random.Random, window: float,
                            hold: asyncio.Event, opened: list) -> None:
    """Every socket of the slot's first match opens at a random moment of ``window`` seconds."""
    match_id = slot["matches"][0]
    plan = [(slot["spectator_url"], c) for c in slot["spectator_cookies"]] + \
           [(slot["player_url"], c) for c in slot["player_cookies"]]

    async def one(url: str, cookie: str) -> None:
        await asyncio.sleep(rng.uniform(0, window))
        began = time.perf_counter()
        try:
            ws = await _boardhall_socket(url, match_id, cookie).__aenter__()
        except Exception as exc:
            rec.failed_handshakes += 1
            rec.error(f"handshake: {exc!r}")
            return
        opened.append(ws)
        try:
            await asyncio.wait_for(_next_state(ws, rec), 30)
            rec.first_state.append(time.perf_counter() - began)
        except Exception as exc:
            rec.error(f"first state: {exc!r}")
        await hold.wait()

    await asyncio.gather(*(one(url, cookie) for url, cookie in plan))


# -- running a spec -------------------------------------------------------------------------------

async def run(spec: dict) -> dict:
    rng = random.Random(spec.get("seed", 0))
    rec, side = Recorder(), Recorder()
    delay = spec["start_at"] - time.time()
    if delay > 0:
        await asyncio.sleep(delay)
    cpu0 = time.process_time()
    clock = Clock(spec["seconds"])
    if spec["mode"] == "arrivals":
        hold, opened = asyncio.Event(), []
        tasks = [boardhall_arrival(slot, rec, random.Random(rng.random()), spec["window"], hold, opened)
                 for slot in spec["slots"]]
        waiter = asyncio.ensure_future(asyncio.gather(*tasks))
        await asyncio.sleep(spec["window"])
        # Everyone who got in stays connected until the last arrival has had its first state.
        while len(rec.first_state) + rec.errors < sum(4 for _ in spec["slots"]):
            if time.perf_counter() - clock.started > spec["window"] + 40:
                break
            await asyncio.sleep(0.1)
        hold.set()
        await waiter
        elapsed = time.perf_counter() - clock.started
        await asyncio.gather(*(ws.close() for ws in opened), return_exceptions=True)
    else:
        if spec["kind"] == "bgio":
            from benchmarks.load.bgio import bgio_slot  # needs socketio and aiohttp: only for this peer

            tasks = [bgio_slot(slot, clock, rec, random.Random(rng.random()), spec.get("think"))
                     for slot in spec["slots"]]
        else:
            tasks = [boardhall_slot(slot, clock, rec, random.Random(rng.random()), spec.get("think"))
                     for slot in spec["slots"]]
        # The people against the computer play on until the timed load is over, then stop.
        beside = [asyncio.ensure_future(boardhall_computer_slot(slot, clock, side, random.Random(rng.random())))
                  for slot in spec.get("computer_slots", [])]
        await asyncio.gather(*tasks)
        for task in beside:
            task.cancel()
        await asyncio.gather(*beside, return_exceptions=True)
        elapsed = max(time.perf_counter() - clock.started, 1e-9)
    cpu = time.process_time() - cpu0
    window = min(elapsed, spec["seconds"]) if spec["mode"] != "arrivals" else elapsed
    since = clock.started + spec.get("warmup", 0)
    return {"moves": rec.moves, "window": window, "acks": rec.acks, "deliveries": rec.deliveries, "first_state": rec.first_state,
            "acks_steady": rec.steady(rec.acks, rec.ack_sent, since),
            "deliveries_steady": rec.steady(rec.deliveries, rec.delivery_sent, since),
            "errors": rec.errors, "stalls": rec.stalls, "failed_handshakes": rec.failed_handshakes, "elapsed": elapsed,
            "exhausted_slots": rec.exhausted_slots, "error_samples": rec.error_samples + side.error_samples,
            "computer_side_moves": len(side.acks), "computer_side_errors": side.errors,
            "client_cpu": cpu / elapsed}


def main() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    spec = json.loads(sys.stdin.read())
    print(json.dumps(asyncio.run(run(spec))))


if __name__ == "__main__":
    main()
