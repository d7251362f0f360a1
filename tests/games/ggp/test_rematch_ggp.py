"""Rematches of matches with GGP seats (``games.services.rematches.rematch_offer``): the same
programs are seated at once, as at creation, and the rematch starts as soon as the people are
there; or the offer is refused, saying why, when a program may not play it."""

import pytest

from games import services
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import GGPPlayer, Match
from games.rules import get_game
from tests.support.ggphttp import PlayerServer, fumbling
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db(transaction=True)
PER_MOVE = TimeControl(start=30, play=10)


@pytest.fixture(autouse=True)
def inline(settings):
    settings.COMPUTER_WORKERS = "inline"
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_GRACE_SECONDS = 1


def finished(match: Match, people: dict) -> Match:
    """Every person moves once (the programs' turns are played at random after them), then
    they resign: the match is over."""
    game = get_game(match.game)
    while match.plies < len(game.roles):
        mover = game.to_move(game.state_from_json(match.state))
        services.move_submit(match_id=match.pk, user=people[mover], version=match.version,
                             action=game.legal_actions(game.state_from_json(match.state))[0])
        match.refresh_from_db()
    for person in people.values():
        services.match_resign(match_id=match.pk, user=person)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


def lost_to(person, owner, server: PlayerServer, *, rated: bool) -> tuple[Match, GGPPlayer]:
    """A finished match of Tic-Tac-Toe x9 that ``person`` (xplayer) lost to ``owner``'s program
    at ``server`` (oplayer), and the program."""
    program = services.ggp_player_register(owner=owner, name="Fumbler", url=server.url)
    match = services.match_create(user=person, settings=MatchSettings("tictactoe-x9", rated, PER_MOVE),
                                  role="xplayer", ggp_players={"oplayer": program.pk})
    return finished(match, {"xplayer": person}), program


def players_by_role(match: Match) -> dict:
    return {s.role: s.player for s in match.seats.select_related("player")}


@pytest.mark.parametrize("rated", [False, True])
def test_a_rematch_against_a_program_seats_it_at_once_and_starts(rated):
    alice, bob = make_accounts(2)
    with PlayerServer(fumbling) as server:
        old, program = lost_to(alice, bob, server, rated=rated)
        rematch = services.rematch_offer(match_id=old.pk, user=alice)
        rematch.refresh_from_db()
        assert rematch.status == Match.Status.ACTIVE and rematch.rated == rated
        assert players_by_role(rematch) == {"xplayer": program.account, "oplayer": alice}  # seats rotated
        assert [body.split()[0] for body in server.bodies()].count("(START") == 2  # it heard the rematch start


def test_a_three_player_rematch_seats_the_program_and_waits_for_the_people():
    alice, bob, carol = make_accounts(3)
    with PlayerServer(fumbling) as server:
        program = services.ggp_player_register(owner=carol, name="Fumbler", url=server.url)
        match = services.match_create(user=alice, settings=MatchSettings("tictactoe-3player", True, PER_MOVE),
                                      role="xplayer", ggp_players={"zplayer": program.pk})
        match = services.seat_join(match_id=match.pk, user=bob)
        old = finished(match, {"xplayer": alice, "oplayer": bob})
        rematch = services.rematch_offer(match_id=old.pk, user=alice)
        assert rematch.status == Match.Status.WAITING
        seats = {s.role: s for s in rematch.seats.all()}
        assert seats["xplayer"].player == program.account and seats["oplayer"].player == alice
        assert seats["zplayer"].player is None and seats["zplayer"].reserved_for == bob
        assert services.seat_join(match_id=rematch.pk, user=bob).status == Match.Status.ACTIVE


def test_a_rated_rematch_against_a_program_that_is_not_online_is_refused():
    alice, bob = make_accounts(2)
    with PlayerServer(fumbling) as server:
        old, program = lost_to(alice, bob, server, rated=True)
    GGPPlayer.objects.filter(pk=program.pk).update(status=GGPPlayer.Status.AWAY)
    with pytest.raises(services.ServiceError) as refused:
        services.rematch_offer(match_id=old.pk, user=alice)
    assert refused.value.code == "ggp_not_online"
    assert refused.value.message.startswith("Fumbler was away (no answer) at its last check")
    assert "A rematch is rated as its match was" in refused.value.message
    assert not old.rematches.exists()


def test_a_rematch_against_a_removed_program_is_refused():
    alice, bob = make_accounts(2)
    with PlayerServer(fumbling) as server:
        old, program = lost_to(alice, bob, server, rated=False)
    services.ggp_player_remove(owner=bob, player_id=program.pk)
    with pytest.raises(services.ServiceError) as refused:
        services.rematch_offer(match_id=old.pk, user=alice)
    assert refused.value.code == "player_gone"
    assert refused.value.message == "Fumbler, a GGP player, was removed by its owner: there is nobody to play the rematch with."
    assert not old.rematches.exists()
