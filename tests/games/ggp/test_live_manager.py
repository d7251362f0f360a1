"""Boardhall as the game manager of real GGP players: a small HTTP player written here
(``tests.support.ggpplayer``: it reads the GDL sent in START with the GDL reasoner, follows
every joint move and answers random legal moves) plays full matches of every rule set against
a person and against the computer, with a late answer and an illegal one replaced by random
legal moves, recorded and shown; a player that never answers; one that is busy; ABORT; one that
thinks through its noop turns and still has its own moves played.

The services run inline (``COMPUTER_WORKERS=inline``: the manager and the computer play right
after each commit, in this thread); the player is a real HTTP server on the loopback."""

import threading

import pytest

from games import selectors, services
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import GGPPlayer, GGPProgress, Match, Move, ReplacedMove
from games.rules import SLUGS, get_game
from games.services.matches import WATCHED_MAX
from tests.support.players import make_accounts
from tests.support.waits import EVENT_SECONDS, until_here

pytest.importorskip("games.ggp.gdl.reasoner", reason="the GDL reasoner (games/ggp/gdl) is not merged yet")

from tests.support.ggpplayer import GGPTestPlayer

pytestmark = pytest.mark.django_db(transaction=True)
PER_MOVE = TimeControl(start=10, play=2)
GRACE = 1.0


@pytest.fixture(autouse=True)
def manager_inline(settings, fake_time):
    """Inline, the manager waits for a player in the thread that committed: the people's
    clocks (``fake_time``) stand still meanwhile, as they would not wait on a real server;
    the players' play clocks are real time (the client's own)."""
    settings.COMPUTER_WORKERS = "inline"
    settings.COMPUTER_ITERATIONS, settings.COMPUTER_SECONDS = 30, 1.0
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_GRACE_SECONDS = GRACE


def register(player: GGPTestPlayer, owner, name: str) -> GGPPlayer:
    registered = services.ggp_player_register(owner=owner, name=name, url=player.url)
    registered.refresh_from_db()
    assert registered.status == GGPPlayer.Status.ONLINE
    return registered


def mover_of(match: Match) -> str | None:
    game = get_game(match.game)
    return game.to_move(game.state_from_json(match.state))


def play_out(match: Match, people: dict) -> Match:
    """The people's turns at random until the match ends; the GGP seats' and the computer's
    are played after each commit (inline). Fails if a GGP seat's turn is ever left waiting."""
    game = get_game(match.game)
    for _ in range(200):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return match
        mover = mover_of(match)
        assert mover in people, f"the turn of {mover} (not a person) was left waiting at ply {match.plies}"
        action = game.legal_actions(game.state_from_json(match.state))[match.plies % 7 % 3 - 1]
        services.move_submit(match_id=match.pk, user=people[mover], action=action, version=match.version)
    raise AssertionError("the match did not end")


def check_the_player_followed(match: Match, player: GGPTestPlayer, role: str) -> None:
    """START, a PLAY for every step, STOP; its own reading of the GDL ended where Boardhall did."""
    assert player.done.is_set()
    kinds = [k for k in player.messages if k != "INFO"]
    assert kinds == ["START"] + ["PLAY"] * match.plies + ["STOP"]
    assert player.reasoner.terminal(player.final)
    assert player.reasoner.goal(player.final, role) == match.seats.get(role=role).score


@pytest.mark.parametrize("slug", SLUGS)
def test_a_ggp_player_plays_a_full_rated_match_against_a_person(slug):
    game = get_game(slug)
    *people, owner = make_accounts(len(game.roles), prefix=f"p{slug[:4]}")
    ggp_role = game.roles[1]
    with GGPTestPlayer(misbehave={2: "late", 3: "illegal"}, seed=len(slug), grace=GRACE) as player:
        registered = register(player, owner, "Random Rita")  # never rated against its own owner
        match = services.match_create(user=people[0], settings=MatchSettings(slug, rated=True, time_control=PER_MOVE),
                                      role=game.roles[0], ggp_players={ggp_role: registered.pk},
                                      rng=__import__("random").Random(1))
        others = [r for r in game.roles if r not in {game.roles[0], ggp_role}]
        for person, role in zip(people[1:], others):
            services.seat_join(match_id=match.pk, user=person, role=role)
        seated = {s.role: s.player for s in match.seats.select_related("player")}
        match = play_out(match, {r: p for r, p in seated.items() if r != ggp_role})
        assert match.status == Match.Status.FINISHED
        player.done.wait(10)
        check_the_player_followed(match, player, ggp_role)
    rated = {s.role: s.rating_after for s in match.seats.all()}
    assert None not in rated.values(), f"a rated match with a GGP player changes every rating: {rated}"
    replaced = list(ReplacedMove.objects.filter(match=match).order_by("ply"))
    assert [(r.role, r.reason) for r in replaced] == [(ggp_role, "late"), (ggp_role, "illegal")]
    ggp_plies = list(Move.objects.filter(match=match, role=ggp_role).order_by("ply").values_list("ply", flat=True))
    assert [r.ply for r in replaced] == ggp_plies[1:3]
    assert replaced[1].answer == "(mark 9 9 9 9 q)"
    shown = {m["ply"]: m.get("replaced") for m in selectors.match_snapshot(match=match)["moves"]}
    assert [shown[r.ply] for r in replaced] == ["too late", "not a legal move"]
    # every other move of the GGP seat is the one it answered
    answered = {ply for ply in ggp_plies} - {r.ply for r in replaced}
    assert len(answered) == len(ggp_plies) - 2


@pytest.mark.parametrize("slug", SLUGS)
def test_a_ggp_player_plays_a_full_match_against_the_computer(slug):
    game = get_game(slug)
    [owner] = make_accounts(1, prefix=f"o{slug[:4]}")
    with GGPTestPlayer(seed=7, grace=GRACE) as player:
        registered = register(player, owner, "Random Rob")
        match = services.match_create(user=registered.account, settings=MatchSettings(slug, time_control=PER_MOVE),
                                      role=game.roles[-1], against_computer=True)
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED, f"stopped at ply {match.plies}, {mover_of(match)} to move"
        player.done.wait(10)
        check_the_player_followed(match, player, game.roles[-1])
    assert not ReplacedMove.objects.filter(match=match).exists()
    assert len(player.moves) == Move.objects.filter(match=match, role=game.roles[-1]).count()


def test_a_player_that_never_answers_has_its_turns_played_at_random():
    [person] = make_accounts(1)
    game = get_game("nine-board-tictactoe")
    with GGPTestPlayer(always="silent", grace=GRACE) as player:
        registered = services.ggp_player_register(owner=person, name="Mute", url=player.url)
        match = services.match_create(user=person, settings=MatchSettings(game.slug, time_control=PER_MOVE),
                                      role="xPlayer", ggp_players={"oPlayer": registered.pk})
        for _ in range(2):
            match.refresh_from_db()
            state = game.state_from_json(match.state)
            services.move_submit(match_id=match.pk, user=person, action=game.legal_actions(state)[0],
                                 version=match.version)
        match.refresh_from_db()
        assert match.plies == 4 and match.status == Match.Status.ACTIVE
        services.match_resign(match_id=match.pk, user=person)
        player.done.wait(10)
        assert player.messages[-1] == "STOP"
    assert list(ReplacedMove.objects.filter(match=match).values_list("ply", "role", "reason")) == [
        (2, "oPlayer", "silent"), (4, "oPlayer", "silent")]


def test_a_busy_player_is_not_seated_the_match_is_called_off():
    [person] = make_accounts(1)
    with GGPTestPlayer(grace=GRACE) as player:
        registered = services.ggp_player_register(owner=person, name="Elsewhere", url=player.url)
        player.busy = True
        match = services.match_create(user=person, settings=MatchSettings("tictactoe-x9", time_control=PER_MOVE),
                                      role="xplayer", ggp_players={"oplayer": registered.pk})
    match.refresh_from_db()
    registered.refresh_from_db()
    assert match.status == Match.Status.ABORTED and "busy" in match.result["reason"]
    assert registered.status == GGPPlayer.Status.BUSY
    assert player.messages == ["INFO", "START"]


def test_the_players_that_answered_start_ready_hear_abort_when_another_is_busy():
    """The GGP protocol: a match a player accepted (START ``ready``) and that is then called
    off ends for it with ABORT, here because the other GGP seat is busy in another match. The
    busy one never took the match on: it hears nothing more."""
    [person] = make_accounts(1)
    with GGPTestPlayer(grace=GRACE) as ready, GGPTestPlayer(grace=GRACE) as elsewhere:
        first, second = register(ready, person, "Ready"), register(elsewhere, person, "Elsewhere")
        elsewhere.busy = True
        match = services.match_create(user=person, settings=MatchSettings("tictactoe-3player", time_control=PER_MOVE),
                                      role="xplayer", ggp_players={"oplayer": first.pk, "zplayer": second.pk})
        assert ready.done.wait(EVENT_SECONDS), f"the ready player heard {ready.messages}"
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and "Elsewhere is busy" in match.result["reason"]
    assert ready.messages == ["INFO", "START", "ABORT"]
    assert elsewhere.messages == ["INFO", "START"]
    assert GGPProgress.objects.get(pk=match.pk).ended


def test_a_match_called_off_sends_abort():
    [person] = make_accounts(1)
    with GGPTestPlayer(grace=GRACE) as player:
        registered = services.ggp_player_register(owner=person, name="Patient", url=player.url)
        match = services.match_create(user=person, settings=MatchSettings("quarto-misere", time_control=PER_MOVE),
                                      role="white", ggp_players={"black": registered.pk})
        services.match_abort(match_id=match.pk, user=person)
        assert player.done.wait(10)
    assert player.messages == ["INFO", "START", "PLAY", "ABORT"]
    registered.refresh_from_db()
    assert registered.status == GGPPlayer.Status.ONLINE, "it answered START ready"


def test_a_player_gone_at_start_is_shown_away():
    [person] = make_accounts(1)
    with GGPTestPlayer(grace=GRACE) as player:
        registered = register(player, person, "Vanishing")
    # its server stopped: START finds nobody listening
    services.match_create(user=person, settings=MatchSettings("quarto-misere", time_control=PER_MOVE),
                          role="white", ggp_players={"black": registered.pk})
    registered.refresh_from_db()
    assert registered.status == GGPPlayer.Status.AWAY and registered.note.startswith("START: unreachable")


def test_a_ggp_seat_needs_the_per_move_clock_and_two_ggp_players_share_a_three_player_match():
    [person] = make_accounts(1)
    with GGPTestPlayer(seed=1, grace=GRACE) as one, GGPTestPlayer(seed=2, grace=GRACE) as two:
        first, second = register(one, person, "One"), register(two, person, "Two")
        with pytest.raises(services.ServiceError) as refused:
            services.match_create(user=person, settings=MatchSettings("tictactoe-3player"), role="xplayer",
                                  ggp_players={"oplayer": first.pk})
        assert refused.value.code == "ggp_needs_per_move"
        match = services.match_create(user=person, settings=MatchSettings("tictactoe-3player", time_control=PER_MOVE),
                                      role="xplayer", ggp_players={"oplayer": first.pk, "zplayer": second.pk})
        match = play_out(match, {"xplayer": person})
        one.done.wait(10)
        two.done.wait(10)
        check_the_player_followed(match, one, "oplayer")
        check_the_player_followed(match, two, "zplayer")


def test_the_flag_of_a_ggp_seats_turn_waits_for_the_manager(fake_time):
    """Per move, a person's turn that runs out is played at random at once; a GGP seat's turn
    is the manager's to judge (late, illegal, silent): the flag falls only if it cannot."""
    [person] = make_accounts(1)
    with GGPTestPlayer(grace=GRACE) as player:
        registered = services.ggp_player_register(owner=person, name="Judged", url=player.url)
        match = services.match_create(user=person, settings=MatchSettings("tictactoe-x9", time_control=PER_MOVE),
                                      role="oplayer", ggp_players={"xplayer": registered.pk})
        match.refresh_from_db()
        assert match.plies == 1 and mover_of(match) == "oplayer"  # its first move came at once
        services.clock_flag(match_id=match.pk)  # not due: nothing
        fake_time.advance(PER_MOVE.play + 0.5)
        services.clock_flag(match_id=match.pk)  # the person's turn ran out: a random legal move
        match.refresh_from_db()
        assert match.plies == 3 and mover_of(match) == "oplayer", "and the GGP seat answered the next at once"
        assert list(ReplacedMove.objects.values_list("ply", "role", "reason")) == [(2, "oplayer", "late")]
        player.stopped.set()


def test_a_player_that_uses_its_play_clock_on_noop_turns_has_its_own_moves_played(fake_time, settings):
    """The PLAY that carries the person's move goes out only once the player answered the step
    before (its noop turn, where it may think for its whole play clock): its own play clock runs
    from that PLAY, not from the person's move. Neither the flag nor the move's own check of the
    clock may take the turn from it meanwhile."""
    control = TimeControl(start=10, play=5)
    [person] = make_accounts(1)
    noops = threading.Event()
    with GGPTestPlayer(hold_noops=noops, grace=GRACE) as player:
        registered = register(player, person, "Ponderer")
        settings.COMPUTER_WORKERS = "pool"  # the manager waits for the player in a thread of its own, as on a server
        match = services.match_create(user=person, settings=MatchSettings("tictactoe-x9", time_control=control),
                                      role="xplayer", ggp_players={"oplayer": registered.pk})
        assert player.noop_held.wait(EVENT_SECONDS)  # it thinks on PLAY nil, its noop turn
        match.refresh_from_db()
        game = get_game(match.game)
        services.move_submit(match_id=match.pk, user=person, version=match.version,
                             action=game.legal_actions(game.state_from_json(match.state))[0])
        fake_time.advance(control.play + 2 * GRACE + 1)  # past the turn's clock counted from the person's move
        ahead = services.clock_flag(match_id=match.pk)
        assert Match.objects.get(pk=match.pk).plies == 1, "its PLAY has not even gone out"
        assert ahead is not None and ahead > fake_time.now
        noops.set()
        until_here(lambda: GGPProgress.objects.filter(pk=match.pk, sent=2, claim="").exists(),
                   "its move played, the next step sent and the match let go")
    assert not ReplacedMove.objects.filter(match=match).exists()
    assert Move.objects.get(match=match, ply=2).action == player.moves[0]


@pytest.mark.parametrize("slug", ["nine-board-tictactoe-pie", "quarto-misere-classic"])
def test_two_ggp_players_meet_in_a_two_player_match_their_creator_watching(slug):
    game = get_game(slug)
    [person] = make_accounts(1, prefix=f"w{slug[:4]}")
    with GGPTestPlayer(seed=3, grace=GRACE) as one, GGPTestPlayer(seed=4, grace=GRACE) as two:
        first, second = register(one, person, "One"), register(two, person, "Two")
        seats = dict(zip(game.roles, (first, second)))
        match = services.match_create(user=person, settings=MatchSettings(slug, time_control=PER_MOVE),
                                      ggp_players={r: p.pk for r, p in seats.items()}, watch=True)
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED, f"stopped at ply {match.plies}, {mover_of(match)} to move"
        assert {s.role: s.player_id for s in match.seats.all()} == {r: p.account_id for r, p in seats.items()}
        one.done.wait(10)
        two.done.wait(10)
        check_the_player_followed(match, one, game.roles[0])
        check_the_player_followed(match, two, game.roles[1])
    assert not ReplacedMove.objects.filter(match=match).exists()


def test_a_match_without_the_creators_seat_needs_a_program_in_every_seat_and_is_limited(settings):
    [person, other] = make_accounts(2)
    with GGPTestPlayer(seed=5, grace=GRACE, always="silent") as one, \
            GGPTestPlayer(seed=6, grace=GRACE, always="silent") as two:
        first, second = register(one, other, "Uno"), register(two, other, "Dos")
        per_move = MatchSettings("tictactoe-3player", time_control=PER_MOVE)
        refusals = [
            dict(settings=MatchSettings("tictactoe-x9", time_control=PER_MOVE), ggp_players={"xplayer": first.pk}),
            dict(settings=per_move, ggp_players={"xplayer": first.pk, "oplayer": second.pk}),
            dict(settings=per_move, ggp_players={"xplayer": first.pk}, opponents=[other]),
        ]
        for refused_call in refusals:
            with pytest.raises(services.ServiceError) as refused:
                services.match_create(user=person, watch=True, **refused_call)
            assert refused.value.code == "ggp_seats"
        assert not Match.objects.exists()
        with pytest.raises(services.ServiceError) as refused:  # the creator's own programs: never rated
            services.match_create(user=other, watch=True, ggp_players={"xplayer": first.pk, "oplayer": second.pk},
                                  settings=MatchSettings("tictactoe-x9", rated=True, time_control=PER_MOVE))
        assert refused.value.code == "ggp_own_program" and not Match.objects.exists()
        for _ in range(WATCHED_MAX):
            Match.objects.create(game="tictactoe-x9", created_by=person, status=Match.Status.ACTIVE,
                                 state=get_game("tictactoe-x9").state_to_json(get_game("tictactoe-x9").initial_state()))
        with pytest.raises(services.ServiceError) as refused:
            services.match_create(user=person, watch=True, ggp_players={"xplayer": first.pk, "oplayer": second.pk},
                                  settings=MatchSettings("tictactoe-x9", time_control=PER_MOVE))
        assert refused.value.code == "too_many_watched"
        assert Match.objects.count() == WATCHED_MAX
