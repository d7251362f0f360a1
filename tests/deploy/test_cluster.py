"""Hosts vanishing under play, in the cluster of ``deploy/cluster.py``: network namespaces as
hosts (a load balancer, two app hosts, two worker hosts, PostgreSQL, Redis with Sentinel),
started once for the module. Real players play over websockets through the load balancer
while a host's processes are all killed at once, while an app host is cut off from Redis and
then from PostgreSQL (a partition), and while the app hosts are drained and restarted in turn
(a rolling deploy).

The play is bounded by what happens: it stops once every match has had a few more moves
after the failure. The ceilings only guard against a hang; the times the tests print are
figures (docs/resilience.md), not tests of time."""

from __future__ import annotations

import asyncio
import statistics
import time
import urllib.error
import urllib.request

import pytest

from games.rules import get_game
from tests.support.cluster import Play, deploy_cluster, needs_namespaces, page, shell, stored

pytestmark = pytest.mark.services

GAME = "nine-board-tictactoe"
SAFETY_SECONDS = 240  # only against a hang
RECOVERY_CEILING_SECONDS = 60  # against a hang; the figures are printed
PARTITION_SECONDS = 10  # how long a link stays cut: the fault's length, not a wait for anything
PAGE_CEILING_SECONDS = 30  # an HTTP page that takes longer counts as not answering


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


def two_player_tables(cluster, count: int, label: str, clock: str = "") -> list:
    """``count`` matches of GAME between two new players each, started: [[match id, [cookies]]].
    ``clock``: the ``start_match`` keyword arguments of a timed match."""
    return shell(cluster, f"""
import json
from tests.support.players import make_players, session_cookie, start_match
out = []
for i in range({count}):
    players = make_players(2, f"{label} {{i}}")
    out.append([start_match("{GAME}", players{clock}).pk, [session_cookie(p) for p in players]])
print(json.dumps(out))""")


def pages_of(cluster, tables: list, play: Play, on_state) -> list:
    return [page(cluster.url, cluster.ws_url, match_id, cookie, match_id * 10 + n, play, on_state)
            for match_id, cookies in tables for n, cookie in enumerate(cookies)]


def test_an_app_host_vanishes_and_its_players_carry_on_through_the_other(cluster):
    matches_count, moves_before, moves_after = 6, 30, 4
    tables = two_player_tables(cluster, matches_count, "app host")
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
        await run_pages(cluster, pages_of(cluster, tables, play, on_state), play, "app host vanished")

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


def page_probe(cluster, paths: list[str], answers: list[tuple[str, int | str, float]]) -> None:
    """GET each of ``paths`` once through the load balancer, as a visitor (nginx spreads them
    over the app hosts); each answer as (path, status or error, seconds)."""
    for path in paths:
        began = time.monotonic()
        try:
            with urllib.request.urlopen(f"{cluster.url}{path}", timeout=PAGE_CEILING_SECONDS) as answer:
                status: int | str = answer.status
        except urllib.error.HTTPError as err:
            status = err.code
        except OSError as err:
            status = f"{type(err).__name__}: {err}"
        answers.append((path, status, time.monotonic() - began))


async def probe_pages_until(cluster, paths: list[str], stop: asyncio.Event, answers: list) -> None:
    """HTTP pages asked for, one after another, until ``stop``."""
    while not stop.is_set():
        await asyncio.to_thread(page_probe, cluster, paths, answers)


def until_every_match_moved(play: Play, state: dict, match_ids: list[int], moves_after: int) -> None:
    """The play's end: every match has had ``moves_after`` more states since the fault ended
    (``state["ended_at"]``), or is over; the first of them per match in ``state["first_after"]``."""
    if state["ended_at"] is not None and all(
            state["after"][m] >= moves_after or m in state["over"] for m in match_ids):
        state.setdefault("all_moved_after", time.monotonic() - state["ended_at"])
        play.done.set()


def fault_state(match_ids: list[int]) -> dict:
    return {"began": asyncio.Event(), "began_at": None, "ended_at": None, "after": {m: 0 for m in match_ids},
            "first_after": {}, "over": set()}


def on_state_around(play: Play, state: dict, match_ids: list[int], moves_before: int, moves_after: int):
    """The pages' ``on_state``: starts the fault (``state["began"]``) after ``moves_before``
    acknowledged moves, counts each match's states after it ended."""
    def on_state(match_id: int, message: dict) -> None:
        if message["match"]["status"] != "active":
            state["over"].add(match_id)
        if state["began_at"] is None and len(play.acknowledged) >= moves_before:
            state["began_at"] = time.monotonic()
            state["began"].set()
        elif state["ended_at"] is not None:
            state["first_after"].setdefault(match_id, time.monotonic() - state["ended_at"])
            state["after"][match_id] += 1
        until_every_match_moved(play, state, match_ids, moves_after)
    return on_state


def both_app_hosts_running(cluster) -> None:
    """The tests above leave an app host vanished: the ones below need both."""
    for host in deploy_cluster.APPS:
        cluster.app_running(host)


def play_through_partition(cluster, cut_off: tuple[str, ...], label: str) -> None:
    """Six matches played through the load balancer while app1 and ``cut_off`` cannot reach
    each other for PARTITION_SECONDS; HTTP pages asked for all along the cut. A move is
    answered (stored) or refused with ``unavailable``; every acknowledged one is stored once."""
    matches_count, moves_before, moves_after = 6, 12, 4
    both_app_hosts_running(cluster)
    tables = two_player_tables(cluster, matches_count, f"cut {cut_off[0]}")
    match_ids = [match_id for match_id, _ in tables]
    play = Play(expected_errors=frozenset({"unavailable"}))
    state = fault_state(match_ids)
    answers: list = []
    paths = ["/", f"/matches/{match_ids[0]}/"]

    async def partition() -> None:
        await state["began"].wait()
        state["sockets_cut"] = cluster.balancer_connections("app1")
        cluster.cut("app1", cut_off)
        healed = asyncio.Event()
        probing = asyncio.ensure_future(probe_pages_until(cluster, paths, healed, answers))
        try:
            await asyncio.sleep(PARTITION_SECONDS)  # the partition's length
        finally:
            cluster.heal("app1", cut_off)
            state["ended_at"] = time.monotonic()
            healed.set()
        await probing
        until_every_match_moved(play, state, match_ids, moves_after)

    async def main() -> None:
        on_state = on_state_around(play, state, match_ids, moves_before, moves_after)
        await run_pages(cluster, [*pages_of(cluster, tables, play, on_state), partition()], play, label)

    asyncio.run(main())

    assert play.problems == [], play.problems
    assert state["ended_at"] is not None, "the play ended before the partition"
    assert state["sockets_cut"], "no page was on the host cut off"
    refused = [a for a in answers if a[1] not in (200, 503)]
    assert answers and refused == [], f"pages that did not answer, or not clearly: {refused}"
    resumed = [state["first_after"].get(m, 0.0) for m in match_ids if m not in state["over"]]
    assert max(resumed, default=0.0) < RECOVERY_CEILING_SECONDS, state["first_after"]
    assert len(play.reconnect_seconds) == len(play.closes), (play.closes, play.reconnect_seconds)
    matches = check_stored(cluster, play, match_ids)
    statuses = sorted({str(a[1]) for a in answers})
    print(f"\n{label}: {len(play.acknowledged)} moves acknowledged, "
          f"{sum(len(m['moves']) for m in matches.values())} stored, none lost or doubled; "
          f"{state['sockets_cut']} connections on app1 at the cut; {len(play.told)} told unavailable; "
          f"{len(play.closes)} pages closed "
          f"(codes {sorted(set(map(str, play.closes)))}); every match moving again "
          f"{max(resumed, default=0.0):.2f} s after the heal (median {statistics.median(resumed or [0.0]):.2f} s), "
          f"{moves_after} more in every match by {state['all_moved_after']:.2f} s; "
          f"{len(answers)} pages asked during the cut: {statuses}, slowest {max(a[2] for a in answers):.2f} s")


def test_an_app_host_cut_off_from_redis_for_a_while_and_play_recovers(cluster):
    play_through_partition(cluster, deploy_cluster.REDISES, "app1 cut off from Redis")


def test_an_app_host_cut_off_from_postgresql_for_a_while_and_play_recovers(cluster):
    play_through_partition(cluster, ("db",), "app1 cut off from PostgreSQL")


async def once(event: asyncio.Event, coroutine) -> None:
    """``coroutine``, once ``event`` is set."""
    await event.wait()
    await coroutine


def test_a_rolling_deploy_across_the_app_hosts_under_play(cluster):
    """Each app host drained and started again in turn (``Cluster.restart_app``, a release's
    step), each while a wave of six matches is under way: the second wave's pages open once
    the first host is back, so nginx spreads them over both and the second drain has pages too
    (the first wave's matches may be over by then)."""
    per_wave, moves_before, moves_after = 6, 12, 4
    both_app_hosts_running(cluster)
    tables = two_player_tables(cluster, 2 * per_wave, "rolling")
    waves = [tables[:per_wave], tables[per_wave:]]
    match_ids = [match_id for match_id, _ in tables]
    play = Play()
    state = fault_state(match_ids)
    ready = [asyncio.Event() for _ in waves]  # the wave's matches have started: drain the next host
    first_back = asyncio.Event()
    answers: list = []
    exits: dict[str, float] = {}
    closed_by: dict[str, int] = {}
    moving = on_state_around(play, state, match_ids, moves_before, moves_after)

    def on_state(match_id: int, message: dict) -> None:
        for wave, event in zip(waves, ready):
            ids = {m for m, _ in wave}
            if not event.is_set() and sum(1 for m, _, _ in play.acknowledged if m in ids) >= moves_before:
                event.set()
        moving(match_id, message)

    async def deploy() -> None:
        await ready[0].wait()
        restarted = asyncio.Event()
        probing = asyncio.ensure_future(probe_pages_until(cluster, ["/"], restarted, answers))
        try:
            for host, wave_ready in zip(deploy_cluster.APPS, ready):
                await wave_ready.wait()
                before = len(play.closes)
                exits[host] = await asyncio.to_thread(cluster.restart_app, host)
                closed_by[host] = len(play.closes) - before
                first_back.set()
        finally:
            state["ended_at"] = time.monotonic()
            restarted.set()
        await probing
        until_every_match_moved(play, state, match_ids, moves_after)

    async def main() -> None:
        pages = [*pages_of(cluster, waves[0], play, on_state),
                 *(once(first_back, p) for p in pages_of(cluster, waves[1], play, on_state))]
        await run_pages(cluster, [*pages, deploy()], play, "rolling deploy")

    asyncio.run(main())

    assert play.problems == [], play.problems  # no page was told of an error: no move failed
    assert sorted(exits) == sorted(deploy_cluster.APPS), exits
    # Pages were on each host as it drained: closed with 1001, back through nginx to the other.
    assert all(closed_by.values()) and set(play.closes) == {1001}, (closed_by, play.closes)
    assert len(play.reconnect_seconds) == len(play.closes), (play.closes, play.reconnect_seconds)
    assert answers and [a for a in answers if a[1] != 200] == [], answers
    matches = check_stored(cluster, play, match_ids)
    print(f"\nrolling deploy: {len(play.acknowledged)} moves acknowledged, "
          f"{sum(len(m['moves']) for m in matches.values())} stored, none lost or doubled; "
          f"pages closed with 1001 per host {closed_by}, back in {statistics.median(play.reconnect_seconds):.2f} s "
          f"median, {max(play.reconnect_seconds):.2f} s max; SIGTERM to exit "
          f"{ {h: round(t, 2) for h, t in exits.items()} } s; "
          f"{len(answers)} pages asked meanwhile, all 200, slowest {max(a[2] for a in answers):.2f} s")
