"""History pages over 10,000 finished matches: response times and query counts.

Builds a throw-away SQLite database (never the project's), fills it with bulk_create, then
requests each page ~30 times with Django's test client as a logged-in player and prints the
median and 95th percentile in milliseconds and the number of queries per request.

    .venv/bin/python benchmarks/history.py [--matches 10000] [--requests 30]

Not a test: it prints figures for docs/benchmarks.md ("History pages").
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()

    workdir = django_on_throwaway_database("history", DEBUG="1")
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    setup_test_environment()
    call_command("migrate", verbosity=0)
    player, filtered_game = fill(args.matches, args.players)

    client = Client()
    client.force_login(player)
    pages = {
        "first page": "/history/",
        "filtered (game + player + won)": f"/history/?game={filtered_game}&player={player.pk}&result=won",
        "deep page (page 300)": "/history/?page=300",
        "player page": f"/players/{player.pk}/",
    }
    print(f"{args.matches} finished matches, {args.players} players; SQLite at {workdir}")
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; "
          f"{platform.platform()}")
    print(f"{'page':34} {'median ms':>10} {'p95 ms':>8} {'queries':>8}")
    for name, url in pages.items():
        client.get(url)  # warm caches (templates, SQLite pages)
        times = []
        for _ in range(args.requests):
            with CaptureQueriesContext(connection) as queries:
                start = time.perf_counter()
                response = client.get(url)
                times.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, (url, response.status_code)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(f"{name:34} {statistics.median(times):10.1f} {p95:8.1f} {len(queries):8d}")


def fill(match_count: int, player_count: int):
    """Users, finished matches (10% private) and their seats, written with bulk_create."""
    from django.db import transaction
    from django.utils import timezone

    from games.models import Match, Outcome, Seat
    from games.rules import get_game
    from lobby.models import User

    rng = random.Random(5)
    slugs = ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player", "quarto-misere"]
    initial = {slug: get_game(slug).state_to_json(get_game(slug).initial_state()) for slug in slugs}
    now = timezone.now()
    with transaction.atomic():
        users = User.objects.bulk_create([
            User(username=f"bench-{i}", display_name=f"Player {i}", is_guest=True, password="!")
            for i in range(player_count)])
        matches, plans = [], []
        for i in range(match_count):
            slug = rng.choice(slugs)
            game = get_game(slug)
            people = rng.sample(users, len(game.roles))
            scores = rng.choice([[100, 0], [0, 100], [50, 50]]) if len(game.roles) == 2 else \
                rng.choice([[100, 66, 0], [33, 33, 33], [0, 66, 100]])
            winners = [] if len(set(scores)) == 1 else [r for r, s in zip(game.roles, scores) if s == max(scores)]
            finished = now - timedelta(minutes=match_count - i)
            matches.append(Match(
                game=slug, status=Match.Status.FINISHED, is_private=rng.random() < 0.1, created_by=people[0],
                state=initial[slug], version=rng.randint(9, 60), started_at=finished - timedelta(minutes=10),
                finished_at=finished,
                result={"scores": dict(zip(game.roles, scores)), "winners": winners, "draw": not winners,
                        "reason": "benchmark", "line": []}))
            plans.append((game.roles, people, scores, winners))
        Match.objects.bulk_create(matches, batch_size=500)
        seats = []
        for match, (roles, people, scores, winners) in zip(matches, plans):
            for order, (role, person, score) in enumerate(zip(roles, people, scores)):
                outcome = Outcome.DRAWN if not winners else Outcome.WON if role in winners else Outcome.LOST
                seats.append(Seat(match=match, role=role, order=order, player=person, score=score, outcome=outcome))
        Seat.objects.bulk_create(seats, batch_size=1000)
    return users[0], "quarto-misere"


if __name__ == "__main__":
    main()
