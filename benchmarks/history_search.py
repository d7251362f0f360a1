"""History search over 100,000 finished matches: the search's queries, median and p95.

Builds a throw-away database (SQLite in a temporary folder, or the PostgreSQL database named
by --database-url, which it migrates and empties), fills it with --matches finished matches
(two-player rule sets, 10% private) among --players players with made-up names, then runs each
kind of search of the history page (``games.history.selectors.history_page``: the count, the
page's rows and their seats) --searches times, each time with other names, days and players
picked at random, as a signed-in player, and prints the median and 95th percentile in ms.

    .venv/bin/python benchmarks/history_search.py [--matches 100000] [--players 5000] [--searches 50]
        [--database-url postgres://postgres@127.0.0.1:5432/boardhall_bench]

Not a test: it prints figures for docs/benchmarks.md ("History search").
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from datetime import timedelta

from throwaway import django_on_throwaway_database

SYLLABLES = ["ka", "ri", "mo", "an", "le", "su", "to", "vi", "ne", "ha", "jo", "el", "ma", "ru", "di", "za"]
TWO_PLAYER = ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "quarto-misere"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--searches", type=int, default=50)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()

    os.environ.pop("REDIS_URL", None)
    workdir = django_on_throwaway_database("history-search", args.database_url, DEBUG="0")
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    started = time.perf_counter()
    users, first_day, days = fill(args.matches, args.players)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    print(f"{args.matches} finished matches, {args.players} players, filled in {time.perf_counter() - started:.0f} s; "
          f"{connection.vendor}{'' if args.database_url else f' at {workdir}'}")
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; {platform.platform()}")
    print("| search | median ms | p95 ms | matches found (median) |\n| --- | ---: | ---: | ---: |")
    rng = random.Random(11)
    for label, filters_of in searches(users, first_day, days):
        run(label, [filters_of(rng) for _ in range(args.searches)], viewer=users[0])


def searches(users, first_day, days):
    """Each kind of search: a label and how to pick its filters at random."""
    from games.history.selectors import HistoryFilters

    def prefix(rng, letters):
        return rng.choice(users).display_name[:letters]

    def day(rng):
        return first_day + timedelta(days=rng.randrange(days - 7))

    def week(rng):
        since = day(rng)
        return {"since": since, "until": since + timedelta(days=6)}

    return [
        ("no filter (the first page)", lambda rng: HistoryFilters()),
        ("player's name, 2 letters", lambda rng: HistoryFilters(name=prefix(rng, 2))),
        ("player's name, 4 letters", lambda rng: HistoryFilters(name=prefix(rng, 4))),
        ("name + game + result", lambda rng: HistoryFilters(name=prefix(rng, 4), game=rng.choice(TWO_PLAYER),
                                                            result="won")),
        ("player (id) + opponent's name, 2 letters", lambda rng: HistoryFilters(player_id=rng.choice(users).pk,
                                                                                 opponent=prefix(rng, 2))),
        ("name + opponent's name, 3 letters each", lambda rng: HistoryFilters(name=prefix(rng, 3),
                                                                              opponent=prefix(rng, 3))),
        ("a week", lambda rng: HistoryFilters(**week(rng))),
        ("a week + name, 2 letters", lambda rng: HistoryFilters(name=prefix(rng, 2), **week(rng))),
        ("everything: game, name, opponent, result, a week",
         lambda rng: HistoryFilters(game=rng.choice(TWO_PLAYER), name=prefix(rng, 2), opponent=prefix(rng, 2),
                                    result="lost", **week(rng))),
    ]


def run(label: str, filter_list, *, viewer) -> None:
    from games.history.selectors import history_page

    history_page(user=viewer, filters=filter_list[0])  # warm the caches
    times, found = [], []
    for filters in filter_list:
        start = time.perf_counter()
        page, rows = history_page(user=viewer, filters=filters)
        found.append(page.paginator.count)
        times.append((time.perf_counter() - start) * 1000)
    p95 = statistics.quantiles(times, n=20)[-1]
    print(f"| {label} | {statistics.median(times):.1f} | {p95:.1f} | {statistics.median(found):.0f} |", flush=True)


def fill(match_count: int, player_count: int):
    """Players with made-up names (their ``name_key`` too), finished matches over the last
    ``days`` days and their seats, written with bulk_create. Returns the players, the first day
    and the number of days."""
    from django.db import transaction
    from django.utils import timezone

    from games.match.text import name_key
    from games.models import Match, Outcome, Seat
    from games.rules import get_game
    from lobby.models import User

    rng = random.Random(7)
    initial = {slug: get_game(slug).state_to_json(get_game(slug).initial_state()) for slug in TWO_PLAYER}
    now = timezone.now()
    days = 730
    names = set()
    while len(names) < player_count:
        names.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))).capitalize()
                  + str(rng.randrange(100)))
    with transaction.atomic():
        users = User.objects.bulk_create([
            User(username=f"bench-{i}", display_name=name, name_key=name_key(name), password="!")
            for i, name in enumerate(sorted(names))], batch_size=1000)
        matches, plans = [], []
        for i in range(match_count):
            slug = rng.choice(TWO_PLAYER)
            roles = get_game(slug).roles
            people = rng.sample(users, 2)
            winner = rng.choice([0, 1, None])
            finished = now - timedelta(minutes=(match_count - i) * days * 24 * 60 / match_count)
            matches.append(Match(
                game=slug, status=Match.Status.FINISHED, is_private=rng.random() < 0.1, created_by=people[0],
                state=initial[slug], version=rng.randint(9, 60), started_at=finished - timedelta(minutes=10),
                finished_at=finished, rated=True,
                result={"scores": {r: (50 if winner is None else 100 * (k == winner)) for k, r in enumerate(roles)},
                        "winners": [] if winner is None else [roles[winner]], "draw": winner is None,
                        "reason": "benchmark", "line": []}))
            plans.append((roles, people, winner))
        Match.objects.bulk_create(matches, batch_size=1000)
        seats = []
        for match, (roles, people, winner) in zip(matches, plans):
            for order, (role, person) in enumerate(zip(roles, people)):
                outcome = Outcome.DRAWN if winner is None else Outcome.WON if order == winner else Outcome.LOST
                seats.append(Seat(match=match, role=role, order=order, player=person,
                                  score=50 if winner is None else 100 * (order == winner), outcome=outcome))
        Seat.objects.bulk_create(seats, batch_size=2000)
    return users, (now - timedelta(days=days)).date(), days


if __name__ == "__main__":
    main()
