"""Hosts vanishing under play, in the cluster of ``deploy/cluster.py``: network namespaces as
hosts (a load balancer, two app hosts, two worker hosts, PostgreSQL, Redis with Sentinel),
started once for the module. Real players play over websockets through the load balancer
while a host's processes are all killed at once.

The play is bounded by what happens: it stops once every match has had a few more moves
after the failure. The ceilings only guard against a hang; the times the tests print are
figures (docs/resilience.md), not tests of time."""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest

from games.rules import get_game
from tests.support.cluster import Play, deploy_cluster, needs_namespaces, page, shell, stored

pytestmark = pytest.mark.services

GAME = "nine-board-tictactoe"
SAFETY_SECONDS = 240  # only against a hang
RECOVERY_CEILING_SECONDS = 60  # against a hang; the figures are printed


@pytest.fixture(scope="module")
def cluster():
    needs_namespaces()
    with deploy_cluster.Cluster(computer_seconds="0.5") as running:
        yield running


def check_stored(cluster, play: Play, match_ids: list[int]) -> dict:
    """Every acknowledged move is stored; each match's moves run 1, 2, 3, ... once each and
    replay to its stored state and version: none lost, none applied twice."""
    matches = stored(cluster, match_ids)
    kept = {(m, ply, action) for m, found in matches.items() for ply, action in found["moves"]}
    lost = [move for move in play.acknowledged if move not in kept]
    assert lost == [], f"acknowledged moves not stored: {lost}"
    for match_id, found in matches.items():
        game = get_game(found["game"])
        plies = [ply for ply, _ in found["moves"]]
        assert plies == list(range(1, len(plies) + 1)), (match_id, plies)
        assert found["version"] == len(plies), (match_id, found["version"], len(plies))
        assert game.state_from_json(found["state"]) == game.replay([a for _, a in found["moves"]]), match_id
    return matches


async def run_pages(cluster, pages: list, play: Play, what: str) -> None:
    tasks = [asyncio.ensure_future(guarded(p, play)) for p in pages]
    try:
        await asyncio.wait_for(play.done.wait(), SAFETY_SECONDS)
    except TimeoutError:
        pytest.fail(f"{what}: no end in {SAFETY_SECONDS} s; closes {play.closes}, "
                    f"{len(play.acknowledged)} moves acknowledged; logs in {cluster.run}")
    finally:
        play.done.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def guarded(coroutine, play: Play) -> None:
    try:
        await coroutine
    except Exception as err:
        play.problem(f"{type(err).__name__}: {err}")


def test_an_app_host_vanishes_and_its_players_carry_on_through_the_other(cluster):
    matches_count, moves_before, moves_after = 6, 30, 4
    tables = shell(cluster, f"""
import json
from tests.support.players import make_players, session_cookie, start_match
out = []
for i in range({matches_count}):
    players = make_players(2, f"app host {{i}}")
    out.append([start_match("{GAME}", players).pk, [session_cookie(p) for p in players]])
print(json.dumps(out))""")
    match_ids = [match_id for match_id, _ in tables]
    play = Play()
    state = {"killed_at": None, "after": {m: 0 for m in match_ids}, "over": set()}

    def on_state(match_id: int, message: dict) -> None:
        if message["match"]["status"] != "active":
            state["over"].add(match_id)
        if state["killed_at"] is None:
            if len(play.acknowledged) >= moves_before:
                state["killed_at"] = time.monotonic()
                cluster.vanish("app1")  # blocks the loop a moment: the host is gone meanwhile anyway
        else:
            state["after"][match_id] += 1
            if all(state["after"][m] >= moves_after or m in state["over"] for m in match_ids):
                play.done.set()

    async def main() -> None:
        pages = [page(cluster.url, cluster.ws_url, match_id, cookie, match_id * 10 + n, play, on_state)
                 for match_id, cookies in tables for n, cookie in enumerate(cookies)]
        await run_pages(cluster, pages, play, "app host vanished")

    asyncio.run(main())

    assert play.problems == [], play.problems
    assert state["killed_at"] is not None, "the play ended before the host vanished"
    # nginx spread the pages over both hosts: those of the vanished one were cut, came back
    # through the load balancer to the other, and played on.
    assert play.closes, "no page was on the vanished host"
    assert len(play.reconnect_seconds) == len(play.closes), (play.closes, play.reconnect_seconds)
    assert max(play.reconnect_seconds) < RECOVERY_CEILING_SECONDS, play.reconnect_seconds
    matches = check_stored(cluster, play, match_ids)
    print(f"\napp host vanished: {len(play.acknowledged)} moves acknowledged, "
          f"{sum(len(m['moves']) for m in matches.values())} stored, none lost or doubled; "
          f"{len(play.closes)} of {2 * matches_count} pages cut (codes {sorted(set(map(str, play.closes)))}), "
          f"back through the load balancer in {statistics.median(play.reconnect_seconds):.2f} s median, "
          f"{max(play.reconnect_seconds):.2f} s max")


def test_the_worker_host_vanishes_and_the_computer_plays_on_from_the_second(cluster):
    matches_count, computer_moves_before, computer_moves_after = 3, 4, 3
    tables = shell(cluster, f"""
import json
from games import services
from games.match.settings import MatchSettings
from games.rules import get_game
from tests.support.players import make_players, session_cookie
out = []
for i in range({matches_count}):
    player = make_players(1, f"worker host {{i}}")[0]
    match = services.match_create(user=player, settings=MatchSettings("{GAME}", False), against_computer=True,
                                  computer_level=1, role=get_game("{GAME}").roles[0])
    out.append([match.pk, session_cookie(player)])
print(json.dumps(out))""")
    match_ids = [match_id for match_id, _ in tables]
    play = Play()
    state = {"killed_at": None, "first_after": {}, "after": {m: 0 for m in match_ids}, "over": set()}

    def on_state(match_id: int, message: dict) -> None:
        computer_moved = play.others and play.others[-1][0] == match_id and \
            message["last_move"] and play.others[-1][1] == message["last_move"]["ply"]
        if message["match"]["status"] != "active":
            state["over"].add(match_id)
        if state["killed_at"] is None:
            # The kill comes as the player moves: the computer's next turn is on its way.
            if len(play.others) >= computer_moves_before and not computer_moved:
                state["killed_at"] = time.monotonic()
                cluster.vanish("worker1")
        elif computer_moved:
            state["first_after"].setdefault(match_id, play.others[-1][2] - state["killed_at"])
            state["after"][match_id] += 1
        if state["killed_at"] is not None and all(
                state["after"][m] >= computer_moves_after or m in state["over"] for m in match_ids):
            play.done.set()

    async def main() -> None:
        pages = [page(cluster.url, cluster.ws_url, match_id, cookie, match_id, play, on_state)
                 for match_id, cookie in tables]
        await run_pages(cluster, pages, play, "worker host vanished")

    asyncio.run(main())

    assert play.problems == [], play.problems
    assert state["killed_at"] is not None, "the play ended before the worker host vanished"
    assert play.closes == [], f"pages closed though no app host went: {play.closes}"
    resumed = list(state["first_after"].values())
    assert resumed and max(resumed) < RECOVERY_CEILING_SECONDS, state["first_after"]
    assert "Traceback" not in cluster.log("worker2", "worker"), cluster.log("worker2", "worker")[-3000:]
    check_stored(cluster, play, match_ids)
    print(f"\nworker host vanished: the computer's next move in each match came "
          f"{statistics.median(resumed):.2f} s median, {max(resumed):.2f} s max after the kill, "
          f"from the second worker host; {len(play.others)} computer moves in all, none lost or doubled")
