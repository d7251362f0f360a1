"""Building blocks for tests: players, sessions, matches played through the real services."""

from __future__ import annotations

import random

from django.conf import settings
from django.test import Client

from games import services
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Match
from games.rules import get_game
from lobby.services import account_signup, guest_create


def make_players(count: int, prefix: str = "player") -> list:
    return [guest_create(display_name=f"{prefix} {i + 1}") for i in range(count)]


def make_accounts(count: int, prefix: str = "member") -> list:
    """Signed-up players (they may play rated matches; guests may not)."""
    return [account_signup(username=f"{prefix}{i + 1}", password="a long enough password", display_name=f"{prefix} {i + 1}")
            for i in range(count)]


def session_cookie(user) -> str:
    """A logged-in session for ``user``, as the value of the session cookie."""
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def start_match(game_slug: str, players: list, is_private: bool = False, rated: bool = False,
                time_control: TimeControl = TimeControl()) -> Match:
    """A match with ``players[i]`` in the i-th role, started."""
    roles = get_game(game_slug).roles
    match = services.match_create(user=players[0], settings=MatchSettings(game_slug, rated, time_control),
                                  role=roles[0], is_private=is_private)
    for role, player in zip(roles[1:], players[1:]):
        services.seat_join(match_id=match.pk, user=player, role=role)
    match.refresh_from_db()
    return match


def waiting_match(user, settings: MatchSettings, **kwargs) -> Match:
    """A match waiting for players with its creator on its page (so the lobby lists it)."""
    match = services.match_create(user=user, settings=settings, **kwargs)
    services.presence_enter(match_id=match.pk, channel_name=f"page-{match.pk}-{user.pk}", user=user)
    return match


def play_out(match: Match, players: list, seed: int = 0, max_moves: int | None = None) -> Match:
    """Play random legal actions through ``move_submit`` until the end (or ``max_moves``)."""
    game = get_game(match.game)
    by_role = dict(zip(game.roles, players))
    rng = random.Random(seed)
    played = 0
    while match.status == Match.Status.ACTIVE and (max_moves is None or played < max_moves):
        state = game.state_from_json(match.state)
        role = game.to_move(state)
        services.move_submit(match_id=match.pk, user=by_role[role], action=rng.choice(game.legal_actions(state)),
                             version=match.version)
        match.refresh_from_db()
        played += 1
    return match


def play_first_moves(match: Match, players: list, seed: int = 0) -> Match:
    """Play random legal actions until every seat has made its first move: the match has begun,
    and from now on a resignation, a flag fall or a claim decides it (before, it aborts it)."""
    game = get_game(match.game)
    by_role = dict(zip(game.roles, players))
    rng = random.Random(seed)
    moved: set[str] = set(match.moves.values_list("role", flat=True))
    while match.status == Match.Status.ACTIVE and moved < set(game.roles):
        state = game.state_from_json(match.state)
        role = game.to_move(state)
        services.move_submit(match_id=match.pk, user=by_role[role], action=rng.choice(game.legal_actions(state)),
                             version=match.version)
        match.refresh_from_db()
        moved.add(role)
    return match


def current_version(match: Match) -> int:
    """The version ``match`` is at in the database now, as a page that keeps up would show it."""
    return Match.objects.values_list("version", flat=True).get(pk=match.pk)


def race_moves(match: Match, user, actions: list[str], version: int) -> list[str]:
    """Submit ``actions`` for ``user`` at ``version`` from one thread each, released together
    (two tabs of one player); each thread's outcome: "ok" or the refusal's code."""
    return run_at_once([lambda action=action: services.move_submit(match_id=match.pk, user=user, action=action,
                                                                    version=version) for action in actions])


def run_at_once(calls: list) -> list[str]:
    """Run each of ``calls`` in a thread of its own, released together; each one's outcome,
    in the order they ended: "ok" or the code of the ``ServiceError`` it raised."""
    import threading

    from django.db import connection

    barrier = threading.Barrier(len(calls))
    outcomes: list[str] = []

    def run(call) -> None:
        barrier.wait()
        try:
            call()
            outcomes.append("ok")
        except services.ServiceError as err:
            outcomes.append(err.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes
