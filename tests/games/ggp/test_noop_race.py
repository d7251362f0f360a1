"""A GGP player that thinks through its noop steps never loses its own turn to the flag.

In classic-order Quarto a seat's turn is two plies (it places the piece it was given, then
selects one for the other side), and the other side's turn is two plies too. A player that
holds its ``noop`` answers for most of its play clock makes the manager send the PLAY of its
own turn long after that turn began (the person placed and selected meanwhile): its play clock
runs from that PLAY. Its first ply is played by the task that sent it; the PLAY of its second
ply must follow without the flag seeing the match unattended, or the turn (begun long ago, by
the match's own clock) is played at random as "answer lost" although the player answers at once.

The services run inline; the manager's task runs in a thread of its own (it waits on the
player while the person moves). The flag-fall timer of a real server (armed on every commit,
at once for a deadline already past) is played by calling ``clock_flag`` whenever a task lets a
match go, before any other task takes it: the moment the race needs.
"""

import threading

import pytest

from games import services
from games.ggp import manager
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import GGPPlayer, GGPProgress, Match, Move, ReplacedMove
from games.rules import get_game
from tests.support.players import make_accounts
from tests.support.waits import EVENT_SECONDS, until_here

pytest.importorskip("games.ggp.gdl.reasoner", reason="the GDL reasoner (games/ggp/gdl) is not merged yet")

from tests.support.ggpplayer import GGPTestPlayer

pytestmark = pytest.mark.django_db(transaction=True)
CONTROL = TimeControl(start=10, play=5)
GRACE = 0.5


@pytest.fixture(autouse=True)
def manager_inline(settings, fake_time):
    settings.COMPUTER_WORKERS = "inline"
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_GRACE_SECONDS = GRACE


@pytest.fixture
def flag_as_the_manager_lets_go(monkeypatch):
    """The flag timer fires whenever a task has let a match go (nobody holds it then)."""
    let_go = manager._let_go

    def let_go_then_flag(match_id: int, claim: str, asked: int) -> bool:
        done = let_go(match_id, claim, asked)
        if done:
            services.clock_flag(match_id=match_id)
        return done

    monkeypatch.setattr(manager, "_let_go", let_go_then_flag)


def person_moves(match_id: int, person, times: int) -> None:
    game = get_game("quarto-misere-classic")
    for _ in range(times):
        match = Match.objects.get(pk=match_id)
        assert game.to_move(game.state_from_json(match.state)) == "white"
        action = game.legal_actions(game.state_from_json(match.state))[0]
        services.move_submit(match_id=match_id, user=person, action=action, version=match.version)


def test_a_player_that_holds_its_noop_answers_has_its_whole_turns_played_as_it_answered(
        fake_time, flag_as_the_manager_lets_go):
    [person, owner] = make_accounts(2)
    gate = threading.Event()
    with GGPTestPlayer(hold_noops=gate, seed=3, grace=GRACE) as player:
        registered = services.ggp_player_register(owner=owner, name="Ponderer", url=player.url)
        assert GGPPlayer.objects.get(pk=registered.pk).status == GGPPlayer.Status.ONLINE
        created = {}

        def create() -> None:  # inline, START and PLAY nil go out from this thread: it waits on the noop
            created["match"] = services.match_create(
                user=person, settings=MatchSettings("quarto-misere-classic", time_control=CONTROL),
                role="white", ggp_players={"black": registered.pk})

        creating = threading.Thread(target=create)
        creating.start()
        assert player.noop_held.wait(EVENT_SECONDS), "PLAY nil, a noop step for black"
        match_id = until_here(lambda: Match.objects.values_list("pk", flat=True).first(), "the match")

        def hold_then_release(*, held_steps: int) -> None:
            """The player thinks through ``held_steps`` noop steps, each taking the whole play
            clock (the clock moves on by it), while the person has moved."""
            for step in range(held_steps):
                if step:
                    assert player.noop_held.wait(EVENT_SECONDS)
                player.noop_held.clear()
                fake_time.advance(CONTROL.play + 2 * GRACE + 1)
                gate.set()  # this answer goes; the next noop step is held again
                gate.clear()

        # white selects while black thinks on PLAY nil: black's turn (place, then select) began
        # then, and its PLAY leaves only after the noop answer, past that turn's clock
        person_moves(match_id, person, 1)
        hold_then_release(held_steps=1)
        assert player.noop_held.wait(EVENT_SECONDS), "black placed, selected, and thinks on white's place"
        assert Match.objects.get(pk=match_id).plies == 3
        # white places and selects while black holds its noop answer; then a second noop step
        # (white's select) is held too before black's PLAY leaves
        person_moves(match_id, person, 2)
        hold_then_release(held_steps=2)
        gate.set()
        until_here(lambda: GGPProgress.objects.filter(pk=match_id, sent=7, claim="").exists(),
                   "black's second turn played, the noop step after it sent, and the match let go")
        creating.join(EVENT_SECONDS)
        player.stopped.set()
    assert not ReplacedMove.objects.filter(match_id=match_id).exists(), (
        list(ReplacedMove.objects.filter(match_id=match_id).values_list("ply", "reason")))
    black = list(Move.objects.filter(match_id=match_id, role="black").order_by("ply").values_list("ply", "action"))
    assert [ply for ply, _ in black] == [2, 3, 6, 7]
    assert [action for _, action in black] == player.moves


def test_a_change_that_cannot_be_counted_as_it_commits_is_still_handed_to_a_task(monkeypatch):
    """The count at commit is an extra write: if it fails (the database hiccups), the task is
    asked for all the same and counts the change itself."""
    from django.db import OperationalError

    from games.ggp import offpath

    asked = []

    def fail(match_id: int) -> None:
        raise OperationalError("the database is away")

    monkeypatch.setattr(manager, "_ask", fail)
    monkeypatch.setattr(offpath, "run", lambda name, *args: asked.append((name, args)))
    manager._changed(7)
    assert asked == [("ggp_match_changed", (7, False))]
