"""The GGP arena live: three test GGP players (real HTTP servers on the loopback,
``tests.support.ggpplayer``) opted in; the scheduler makes matches of the rule sets in turn,
fills an empty seat with the computer, writes the ladder (openskill, three players included),
counts strikes, pauses a player that leaves a turn unanswered and one that stops answering
INFO; a second process takes the scheduler over only once the first's claim ran out, and
settles what the first left, once.

The services run inline (``COMPUTER_WORKERS=inline``): a match plays through in the tick that
makes it, so a tick's matches have ended, unsettled, when the next tick comes."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as game_services
from games.match.ratings import INITIAL
from games.models import GGPPlayer, Match
from ggparena import selectors, services
from ggparena.models import ArenaEntry, ArenaMatch, ArenaState
from tests.support.players import make_accounts

pytest.importorskip("games.ggp.gdl.reasoner", reason="the GDL reasoner (games/ggp/gdl) is needed")

from tests.support.ggpplayer import GGPTestPlayer

pytestmark = pytest.mark.django_db(transaction=True)
GRACE = 0.5


@pytest.fixture(autouse=True)
def arena_inline(settings):
    settings.COMPUTER_WORKERS = "inline"
    settings.COMPUTER_ITERATIONS, settings.COMPUTER_SECONDS = 30, 0.2
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_GRACE_SECONDS = GRACE
    settings.GGP_ARENA_GAMES = ["tictactoe-3player", "tictactoe-x9"]
    settings.GGP_ARENA_START_SECONDS, settings.GGP_ARENA_PLAY_SECONDS = "2-3", "1-2"
    settings.GGP_ARENA_COMPUTER_LEVEL = 1
    settings.GGP_ARENA_SECONDS = 60  # a claim stands three ticks: longer than this test (no timer runs here)


def opt_in(player: GGPTestPlayer, owner, name: str) -> GGPPlayer:
    registered = game_services.ggp_player_register(owner=owner, name=name, url=player.url)
    services.arena_opt_in(owner=owner, player_id=registered.pk, opted_in=True)
    return registered


def entries() -> dict[str, ArenaEntry]:
    return {str(e.player.account): e for e in ArenaEntry.objects.select_related("player__account")}


def test_the_arena_schedules_rates_pauses_and_survives_a_restart():
    [owner] = make_accounts(1)
    rng = random.Random(5)
    with GGPTestPlayer(seed=1, grace=GRACE) as one, \
            GGPTestPlayer(seed=2, grace=GRACE, misbehave={1: "illegal"}) as two, \
            GGPTestPlayer(seed=3, grace=GRACE, misbehave={1: "silent"}) as mute:
        opt_in(one, owner, "Ann"), opt_in(two, owner, "Ben"), opt_in(mute, owner, "Mute")

        first = services.arena_tick(owner="process-1", rng=rng)
        [three_player] = first.made
        match = Match.objects.get(pk=three_player)
        assert match.game == "tictactoe-3player" and match.status == Match.Status.FINISHED and not match.rated
        assert {s.player.display_name for s in match.seats.select_related("player")} == {"Ann", "Ben", "Mute"}
        assert 2 <= match.clock_start <= 3 and 1 <= match.clock_play <= 2
        assert not ArenaMatch.objects.get(pk=three_player).settled

        second = services.arena_tick(owner="process-1", rng=rng)
        assert second.settled == [three_player]
        ladder = entries()
        assert all(e.played == 1 for e in ladder.values()), "the three-player match rated all three"
        assert all(e.sigma < INITIAL[1] for e in ladder.values())
        assert ladder["Ben"].illegal == 1 and ladder["Mute"].silent >= 1
        assert ladder["Mute"].paused_at is not None and "unanswered" in ladder["Mute"].paused_note
        [two_player] = second.made
        assert Match.objects.get(pk=two_player).game == "tictactoe-x9"
        assert set(Match.objects.get(pk=two_player).seats.values_list("player__display_name", flat=True)) == {
            "Ann", "Ben"}, "the paused program is not scheduled"

        # the process that held the scheduler dies here, its last match unsettled: another
        # process may take over only once its claim ran out
        assert services.arena_tick(owner="process-2", rng=rng) is None
        ArenaState.objects.update(held_until=timezone.now() - timedelta(seconds=1))
        third = services.arena_tick(owner="process-2", rng=rng)
        assert third.settled == [two_player]
        [with_computer] = third.made
        seated = Match.objects.get(pk=with_computer).seats.select_related("player")
        assert sorted(s.player.is_computer for s in seated) == [False, False, True]
        assert services.arena_tick(owner="process-1", rng=rng) is None, "one owner at a time"

    # the programs stop answering at all; the owner puts Mute back in (it was paused)
    registered = {name: e.player_id for name, e in entries().items()}
    services.arena_opt_in(owner=owner, player_id=registered["Mute"], opted_in=True)
    fourth = services.arena_tick(owner="process-2", rng=rng)
    assert fourth.settled == [with_computer] and fourth.made == []
    assert sorted(fourth.paused) == sorted(registered.values())
    assert all(e.paused_note.startswith("stopped answering INFO") for e in entries().values())
    assert not services.arena_settle(match_id=with_computer), "settled once"
    ladder = entries()
    assert (ladder["Ann"].played, ladder["Ben"].played, ladder["Mute"].played) == (3, 3, 1)
    assert all(e.won + e.drawn + e.lost == e.played for e in ladder.values())
    assert ArenaMatch.objects.filter(settled=False).count() == 0
    shown = selectors.arena_ladder()
    assert [row["name"] for row in shown] == [str(e.player.account) for e in
                                              sorted(ladder.values(), key=lambda e: -e.mu)]
