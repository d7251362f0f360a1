"""How well the computer plays: its levels against a plain UCT, against each other, and its
search's parts measured side by side.

Three modes, each a series of whole games where every side gets the same ``--seconds`` a move
(wall clock; on a loaded machine both sides get less done alike). Seats rotate from game to
game (both seats of a two-player game alternately, each of the three seats in turn):

``uct``       each of ``--levels`` (through ``games.computer.engine.best_move``) against the plain
              UCT of ``benchmarks/uct.py``, one per other seat;
``ladder``    each of ``--levels`` against the level below it;
``ablation``  the strongest level against itself with one part switched off (``--parts``), or the
              old strongest level (plain search, 3,000 rounds, no clock), to see what each pays;
``rounds``    no games: search rounds a second of the plain search and of the expert's (without
              its endgame part), ``--seconds`` from the initial position and from one 8 random
              plies in, the median of ``--games`` repeats; in misère Quarto also the compiled
              search's (``games.computer.quarto_compiled``, the expert's there with a clock);
``endgame``   no games: the exact endgame search, the generic one (``search.solve``) beside the
              rules' own (``Game.exact_goals``) and the compiled one, on ``--games`` positions of
              random play (no line made) with 9, 8, 7 and 6 pieces left, each given ``--seconds``
              at most (the generic one only where it ends in time for 7 or fewer pieces).

It prints, per rule set and pairing, wins, draws (a shared first place) and losses of the first
side, its win rate with a Wilson 95% interval, its points a game (a first place alone 1, one
shared by k 1/k, as a chess draw is half a point; a normal-approximation 95% interval) beside
a fair share (one over the number of players), and then each side's think time per move
(median, p95) and moves per second. Standard library only, no database:

    python3 benchmarks/strength.py --mode uct --games 20 --seconds 0.25 --slugs nine-board-tictactoe

``--set`` measures the strongest level with some of its switches changed (``uct`` mode; in
``ladder`` mode, against the level below the strongest), and
``--seat ROLE`` plays only the games in which the measured side has that role. ``--side-seconds``
gives the measured side another thinking time than the plain UCTs' ``--seconds``: not the issue's
measure (the same time for both) but a ceiling, what several times the thinking would buy;
``--side-plies N`` keeps that time to the plies before the N-th (an opening book's ceiling).
``--side-schedule`` spreads the measured side's time over a game by the ply instead (the per-game
lines print both sides' thinking over the game, to check it is no more than the UCT's).

The figures go to docs/computer.md. Not a test.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.uct import uct_move
from games.computer import engine, search
from games.rules import Game, get_game

Player = Callable[[Game, object, random.Random], str]


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - spread), min(1.0, centre + spread)


def mean_interval(values: list[float], z: float = 1.96) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its normal-approximation 95% interval."""
    mean = statistics.fmean(values)
    return mean, z * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def level_player(level: int, seconds: float) -> Player:
    return lambda game, state, rng: engine.best_move(game.slug, state, level=level, seconds=seconds,
                                                     seed=rng.random())


def uct_player(seconds: float) -> Player:
    return lambda game, state, rng: uct_move(game, state, seconds=seconds, rng=rng)


def search_player(level: search.Level, seconds: float | None) -> Player:
    return lambda game, state, rng: search.choose_action(game, state, rng=rng, iterations=level.rounds,
                                                         seconds=seconds, level=level)


def expert_with(changes: str) -> search.Level:
    """The strongest level with ``changes`` to its fields: ``"rank=0,bias=1.5"``, a bool as 0 or 1,
    a tuple's numbers joined by '+' (``"score_seats=1+2"``); ``""`` changes nothing."""
    readers = {"int": int, "float": float, "bool": lambda v: bool(int(v)),
               "tuple[int, ...]": lambda v: tuple(int(n) for n in v.split("+") if n)}
    kinds = {field.name: readers[field.type] for field in dataclasses.fields(search.Level) if field.type in readers}
    fields = {name: kinds[name](value) for name, value in
              (change.split("=") for change in changes.split(",") if change)}
    return dataclasses.replace(search.LEVELS[-1], name="expert-variant", **fields)


def opening_only(opening: Player, later: Player, plies: int) -> Player:
    """``opening`` while fewer than ``plies`` plies have been played, ``later`` from then on."""
    return lambda game, state, rng: (opening if state.ply < plies else later)(game, state, rng)


def scheduled(make: Callable[[float], Player], schedule: str) -> Player:
    """``make(seconds)``'s player with its seconds by the ply: ``"0:0.25,9:2.8"`` is 0.25 s a
    move from ply 0 and 2.8 s from ply 9 on."""
    steps = sorted((int(ply), make(float(seconds))) for ply, seconds in
                   (step.split(":") for step in schedule.split(",")))
    return lambda game, state, rng: [player for ply, player in steps if ply <= state.ply][-1](game, state, rng)


def play_game(game: Game, players: dict[str, tuple[str, Player]], rng: random.Random,
              think: dict[str, list[float]]) -> tuple[dict[str, int], dict[str, float]]:
    """The goals at the end, and each side's thinking time over the game, in seconds."""
    state = game.initial_state()
    spent: dict[str, float] = {}
    while (role := game.to_move(state)) is not None:
        name, player = players[role]
        started = time.perf_counter()
        action = player(game, state, rng)
        took = time.perf_counter() - started
        think[name].append(took)
        spent[name] = spent.get(name, 0.0) + took
        state = game.play(state, role, action)
    return game.goals(state), spent


def series(slug: str, first: tuple[str, Player], other: tuple[str, Player], games: int,
           think: dict[str, list[float]], start: int = 0, only: str | None = None) -> None:
    """``games`` games of ``first`` in each seat in turn against ``other`` in all the rest,
    numbered from ``start`` (the number seeds the game and picks the seat); with ``only`` (a
    role), the games of those numbers in which ``first`` has that seat."""
    game = get_game(slug)
    won = drawn = lost = 0
    points: list[float] = []
    numbers = range(start, start + games)
    if only is not None:
        numbers = [n for n in range(start, start + games * len(game.roles)) if game.roles[n % len(game.roles)] == only]
    for played, n in enumerate(numbers, 1):
        seat = game.roles[n % len(game.roles)]
        players = {role: first if role == seat else other for role in game.roles}
        goals, spent = play_game(game, players, random.Random(f"{slug}:{first[0]}:{other[0]}:{n}"), think)
        top = max(goals.values())
        sharing = list(goals.values()).count(top)
        points.append(0.0 if goals[seat] < top else 1 / sharing)
        if goals[seat] < top:
            lost += 1
        elif sharing > 1:
            drawn += 1
        else:
            won += 1
        print(f"{slug} game {played}/{games} (no. {n}, {first[0]} as {seat}): {won} won, {drawn} drawn, "
              f"{lost} lost; thought {spent.get(first[0], 0.0):.1f} s against {spent.get(other[0], 0.0):.1f} s",
              file=sys.stderr, flush=True)
    low, high = wilson(won, games)
    mean, half = mean_interval(points)
    print(f"| {slug} | {first[0]} | {other[0]} | {games} | {won} | {drawn} | {lost} "
          f"| {won / games:.0%} | {low:.0%} to {high:.0%} | {mean:.2f} ({mean - half:.2f} to {mean + half:.2f}) "
          f"| {1 / len(game.roles):.2f} |", flush=True)


def ablations(seconds: float, parts: list[str]) -> list[tuple[tuple[str, Player], tuple[str, Player]]]:
    expert = search.LEVELS[-1]
    pairs = []
    for part in parts:
        if part == "old":
            old = dataclasses.replace(search.PLAIN, name="old-strong", rounds=3000)
            pairs.append((("expert", level_player(search.STRONGEST, seconds)), ("old strong (3000 rounds)",
                                                                                   search_player(old, None))))
        else:
            without = dataclasses.replace(expert, name=f"expert-no-{part}", **{part: False})
            pairs.append((("expert", search_player(expert, seconds)),
                          (f"expert without {part}", search_player(without, seconds))))
    return pairs


def rounds_a_second(slugs: list[str], seconds: float, repeats: int) -> None:
    expert = dataclasses.replace(search.LEVELS[-1], endgame=False)
    print("| rule set | plain: initial | plain: 8 plies in | expert: initial | expert: 8 plies in "
          "| compiled: initial | compiled: 8 plies in |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for slug in slugs:
        game = get_game(slug)
        rng = random.Random(slug)
        later = game.initial_state()
        for _ in range(8):
            later = game.play(later, game.to_move(later), rng.choice(game.legal_actions(later)))
        cells = []
        for level in (search.PLAIN, expert):
            for state in (game.initial_state(), later):
                rates = []
                for _ in range(repeats):
                    root = search.new_root(game, state, level=level)
                    started = time.monotonic()
                    search.search(game, root, rng=rng, level=level, rounds=10**9, deadline=started + seconds)
                    rates.append(root.visits / (time.monotonic() - started))
                cells.append(f"{statistics.median(rates):,.0f}")
        for state in (game.initial_state(), later):
            cells.append(compiled_rounds(game, state, seconds, repeats, rng) if search._compiled_search(game) else "")
        print(f"| {slug} | {' | '.join(cells)} |", flush=True)


def compiled_rounds(game: Game, state, seconds: float, repeats: int, rng: random.Random) -> str:
    """The compiled expert's tree-search rounds a second (``games.computer.quarto_compiled``,
    without its exact search), the median of ``repeats``, as a table cell."""
    from games.computer import quarto_compiled

    tree = quarto_compiled.Tree(quarto_compiled.CAPACITY)
    position, classic = quarto_compiled.position(state), game.order == "classic"
    me = quarto_compiled.mover_index(state.ply, classic)
    rates = []
    for _ in range(repeats):
        quarto_compiled.seed(int(rng.random() * 2**31))
        tree.reset()
        started, done = time.monotonic(), 0
        while time.monotonic() < started + seconds:
            tree.run(quarto_compiled.CHUNK, position, classic, me, 25, search.EXPLORATION, True)
            done += quarto_compiled.CHUNK
        rates.append(done / (time.monotonic() - started))
    return f"{statistics.median(rates):,.0f}"


def endgame_times(slugs: list[str], seconds: float, positions: int) -> None:
    print("| rule set | pieces left | positions | generic: median s | solved | rules' own: median s | p90 s | solved "
          "| compiled: median s | p90 s | solved |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for slug in slugs:
        game = get_game(slug)
        if not game.EXACT_SEARCH:
            continue
        rng = random.Random(f"endgame:{slug}")
        for left in (6, 7, 8, 9):
            states = []
            while len(states) < positions:
                state = game.initial_state()
                while state.ply < 2 * (16 - left) and not game.is_terminal(state):
                    state = game.play(state, game.to_move(state), rng.choice(game.legal_actions(state)))
                if not game.is_terminal(state):
                    states.append(state)
            cells = []
            for solver in ("generic", "own", "compiled"):
                if solver == "generic" and left > 7:
                    cells += ["", ""]
                    continue
                times, solved = [], 0
                for state in states:
                    started = time.monotonic()
                    if solver == "generic":
                        found = search.solve(game, state, deadline=started + seconds)
                    elif solver == "own":
                        found = game.exact_goals(state, started + seconds)
                    else:
                        found = compiled_exact(game, state, started + seconds)
                    times.append(time.monotonic() - started)
                    solved += found is not None
                cells.append(f"{statistics.median(times):.3f}")
                if solver != "generic":
                    cells.append(f"{statistics.quantiles(times, n=10, method='inclusive')[8]:.3f}")
                cells.append(f"{solved}")
            print(f"| {slug} | {left} | {positions} | {' | '.join(cells)} |", flush=True)


def compiled_exact(game: Game, state, deadline: float) -> int | None:
    """The compiled exact search's value of ``state`` for its mover (a fresh table), or ``None``
    if ``deadline`` passes first."""
    from games.computer import quarto_compiled

    return quarto_compiled.exact_value(quarto_compiled.Table(), state.board, state.filled, state.pool,
                                       state.selected, game.order == "classic", deadline=deadline)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["uct", "ladder", "ablation", "rounds", "endgame"], default="uct")
    parser.add_argument("--games", type=int, default=10, help="games per rule set and pairing")
    parser.add_argument("--seat", default=None,
                        help="only the games in which the first side has this role (still --games of them)")
    parser.add_argument("--first", type=int, default=0,
                        help="the number of the first game (its seed and seat), to split a series across processes")
    parser.add_argument("--seconds", type=float, default=1.0, help="thinking time a move, for every side")
    parser.add_argument("--side-seconds", type=float, default=None,
                        help="uct mode: the measured side's thinking time a move instead of --seconds (the plain "
                             "UCTs keep --seconds): what more time would buy, a ceiling for the search's ideas")
    parser.add_argument("--side-plies", type=int, default=None,
                        help="with --side-seconds: only while fewer than this many plies are played (then --seconds): "
                             "what more thinking in the opening alone would buy, the most an opening book could")
    parser.add_argument("--side-schedule", default=None,
                        help="uct mode: the measured side's seconds a move by the ply, '0:0.25,9:2.8' (0.25 s from "
                             "ply 0, 2.8 s from ply 9), instead of --side-seconds: its time spread over a game")
    parser.add_argument("--slugs", default="nine-board-tictactoe,quarto-misere,tictactoe-3player")
    parser.add_argument("--levels", default=str(search.STRONGEST), help="levels, comma-separated (1 = weakest)")
    parser.add_argument("--parts", default="tactics,solver,endgame,old",
                        help="ablation: the parts to switch off one at a time (old: the old strongest level)")
    parser.add_argument("--set", dest="changes", default="",
                        help="uct mode: the strongest level with these switches changed, instead of --levels, "
                             "e.g. 'rank=0' or 'tactics=0,rank=1' (names of search.Level's fields; "
                             "a tuple's numbers joined by '+': 'score_seats=1+2')")
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",")]
    side_seconds = args.seconds if args.side_seconds is None else args.side_seconds

    def measured(make: Callable[[float], Player]) -> Player:
        """The measured side's player: ``side_seconds`` a move, or only before ``--side-plies``, or
        by ``--side-schedule``."""
        if args.side_schedule:
            return scheduled(make, args.side_schedule)
        if args.side_plies is None:
            return make(side_seconds)
        return opening_only(make(side_seconds), make(args.seconds), args.side_plies)
    print(f"python {platform.python_version()} on {os.cpu_count()} cpus; {args.seconds} s a move "
          f"({side_seconds} s for the measured side in uct mode"
          f"{'' if args.side_plies is None else f' before ply {args.side_plies}'}); "
          f"load average at start {os.getloadavg()[0]:.2f}")
    print()
    if args.mode in ("rounds", "endgame"):
        (rounds_a_second if args.mode == "rounds" else endgame_times)(args.slugs.split(","), args.seconds, args.games)
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
    print("| rule set | side | against | games | won | shared/drawn | lost | win rate | Wilson 95% "
          "| points a game (95%) | a fair share |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |")
    think: dict[str, list[float]] = {}
    for slug in args.slugs.split(","):
        if args.mode == "uct" and args.changes:
            variant = expert_with(args.changes)
            pairs = [((f"expert with {args.changes}", measured(lambda seconds: search_player(variant, seconds))),
                      ("plain UCT", uct_player(args.seconds)))]
        elif args.mode == "uct":
            pairs = [((f"level {n}", measured(lambda seconds, n=n: level_player(n, seconds))),
                      ("plain UCT", uct_player(args.seconds)))
                     for n in levels]
        elif args.mode == "ladder" and args.changes:
            variant = expert_with(args.changes)
            below = search.STRONGEST - 1
            pairs = [((f"expert with {args.changes}", search_player(variant, args.seconds)),
                      (f"level {below}", level_player(below, args.seconds)))]
        elif args.mode == "ladder":
            pairs = [((f"level {n}", level_player(n, args.seconds)), (f"level {n - 1}", level_player(n - 1, args.seconds)))
                     for n in levels if n > 1]
        else:
            pairs = ablations(args.seconds, args.parts.split(","))
        for first, other in pairs:
            for name in (first[0], other[0]):
                think.setdefault(name, [])
            series(slug, first, other, args.games, think, args.first, args.seat)
    print()
    print("| side | moves | median ms | p95 ms | moves/s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, times in think.items():
        if len(times) >= 2:
            p95 = statistics.quantiles(times, n=100, method="inclusive")[94]
            print(f"| {name} | {len(times)} | {statistics.median(times) * 1000:.0f} | {p95 * 1000:.0f} "
                  f"| {len(times) / sum(times):.1f} |")
    print()
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
