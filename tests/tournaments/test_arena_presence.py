"""An arena's auto-pause (tournaments/arena_presence.py, arena.arena_pair): a free player who is
not at the arena when a wave would pair them is paused and not paired; the arena's page, the
page of their latest game, a bot's event stream, or a page closed a moment ago count as being
there; Resume brings them back; an unreadable store pauses nobody."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as games
from games.match.clocks import TimeControl
from games.models import Match
from games.runtime import presence
from tests.support.players import make_accounts, play_first_moves
from tournaments import arena, arena_presence
from tournaments.models import Entry, TournamentGame

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def auto_pause(settings):
    settings.ARENA_PAUSE_ABSENT = True


def upcoming(players):
    tournament = arena.arena_create(user=players[0], name="Presence arena", game="nine-board-tictactoe",
                                    time_control=TimeControl(base=180, increment=2), minutes=30,
                                    starts_at=timezone.now() + timedelta(minutes=10))
    for player in players[1:]:
        arena.arena_join(tournament_id=tournament.pk, user=player)
    return tournament


def on_page(tournament, player, channel: str | None = None) -> str:
    channel = channel or f"page-{player.pk}"
    arena_presence.arena_page_enter(tournament_id=tournament.pk, channel_name=channel, user_id=player.pk)
    return channel


def paused(tournament) -> set[int]:
    return set(Entry.objects.filter(tournament=tournament, paused=True).values_list("player_id", flat=True))


def paired(tournament) -> set[int]:
    return {p for g in TournamentGame.objects.filter(tournament=tournament) for p in (g.first_id, g.second_id)}


def test_a_player_away_from_the_arena_is_paused_at_the_wave_and_the_others_play():
    ann, bob, cat = make_accounts(3)
    tournament = upcoming([ann, bob, cat])
    on_page(tournament, ann)
    on_page(tournament, bob)
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    assert paired(tournament) == {ann.pk, bob.pk}
    assert paused(tournament) == {cat.pk}


def test_resume_brings_a_paused_player_back_and_pairs_them_once_there():
    ann, bob, cat, dan = make_accounts(4)
    tournament = upcoming([ann, bob, cat, dan])
    for player in (ann, bob, cat):
        on_page(tournament, player)
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    assert paused(tournament) == {dan.pk}
    on_page(tournament, dan)
    arena.arena_join(tournament_id=tournament.pk, user=dan)  # Resume
    assert paused(tournament) == set()
    assert dan.pk in paired(tournament)


def test_a_page_closed_a_moment_ago_is_not_an_absence_but_one_closed_long_ago_is(settings):
    ann, bob = make_accounts(2)
    tournament = upcoming([ann, bob])
    on_page(tournament, ann)
    arena_presence.arena_page_leave(tournament_id=tournament.pk, channel_name=on_page(tournament, bob),
                                    user_id=bob.pk)
    assert arena_presence.arena_present(tournament_id=tournament.pk, player_ids=[ann.pk, bob.pk]) == {ann.pk, bob.pk}
    settings.PRESENCE_TIMEOUT_SECONDS = -1  # every mark is older than the timeout now
    assert arena_presence.arena_present(tournament_id=tournament.pk, player_ids=[ann.pk, bob.pk]) == set()


def test_a_bot_with_its_event_stream_open_is_there():
    ann, bot = make_accounts(2)
    tournament = upcoming([ann, bot])
    on_page(tournament, ann)
    presence.store().enter(presence.EVENT_STREAMS, "stream-1", bot.pk)
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    assert paired(tournament) == {ann.pk, bot.pk} and paused(tournament) == set()


def test_the_page_of_a_players_latest_game_counts_after_it_ends():
    ann, bob, cat = make_accounts(3)
    tournament = upcoming([ann, bob, cat])
    for player in (ann, bob):
        on_page(tournament, player)
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    game = TournamentGame.objects.get(tournament=tournament)
    presence.store().leave(presence.tournament_key(tournament.pk), f"page-{ann.pk}")  # ann went to her game
    presence.store().leave(presence.tournament_key(tournament.pk), f"page-{bob.pk}")
    presence.store().enter(game.match_id, "match-page-ann", ann.pk)
    on_page(tournament, cat)
    arena.arena_join(tournament_id=tournament.pk, user=cat)  # cat resumes: waits for a free opponent
    match = play_first_moves(Match.objects.get(pk=game.match_id), [game.first, game.second])
    games.match_resign(match_id=match.pk, user=bob)  # the end's wave: ann and cat free, bob gone
    assert paused(tournament) == {bob.pk}
    assert TournamentGame.objects.filter(tournament=tournament).count() == 2
    assert paired(tournament) == {ann.pk, bob.pk, cat.pk}


def test_a_lone_free_player_is_not_paused_since_no_pairing_was_missed():
    ann, bob = make_accounts(2)
    tournament = upcoming([ann, bob])
    on_page(tournament, ann)
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    assert paused(tournament) == {bob.pk}
    arena.arena_pair(tournament_id=tournament.pk)
    assert paused(tournament) == {bob.pk}  # ann alone is not paired, nor paused


def test_an_unreadable_store_pauses_nobody(monkeypatch):
    ann, bob = make_accounts(2)
    tournament = upcoming([ann, bob])

    def away(key):
        raise ConnectionRefusedError("Redis is away")

    monkeypatch.setattr(presence.store(), "pages", away)
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    assert paused(tournament) == set() and paired(tournament) == {ann.pk, bob.pk}


def test_the_rule_can_be_turned_off(settings):
    ann, bob = make_accounts(2)
    tournament = upcoming([ann, bob])
    settings.ARENA_PAUSE_ABSENT = False
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    assert paused(tournament) == set() and paired(tournament) == {ann.pk, bob.pk}

