"""Rated matches with GGP seats (``games.services.matches.require_ggp_seats_ratable``): never
against a program one of the people seated registered, and never against a program whose last
check did not find it online, from the service, the GGP players' page and a later join alike."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from games import services
from games.match import absence
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import GGPPlayer, Match, Rating, ReplacedMove, Seat
from games.rules import get_game
from tests.support.ggphttp import PlayerServer, fumbling
from tests.support.ggpplayer import GGPTestPlayer
from tests.support.players import make_accounts, play_first_moves, start_match

pytestmark = pytest.mark.django_db(transaction=True)
PER_MOVE = TimeControl(start=30, play=10)
NOBODY_HOME = "http://localhost:9/"  # nothing listens: every call fails at once


@pytest.fixture(autouse=True)
def inline(settings):
    settings.COMPUTER_WORKERS = "inline"
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_INFO_SECONDS = settings.GGP_GRACE_SECONDS = 1


def registered(owner, name: str, status: str = GGPPlayer.Status.ONLINE) -> GGPPlayer:
    player = services.ggp_player_register(owner=owner, name=name, url=NOBODY_HOME)
    GGPPlayer.objects.filter(pk=player.pk).update(status=status)
    return player


def against(user, player: GGPPlayer, *, rated: bool, slug: str = "tictactoe-x9") -> Match:
    return services.match_create(user=user, settings=MatchSettings(slug, rated, PER_MOVE), role="xplayer",
                                 ggp_players={"oplayer": player.pk})


def test_a_match_against_ones_own_program_is_never_rated_but_may_be_casual():
    [alice] = make_accounts(1)
    mine = registered(alice, "Nobody Home")
    with pytest.raises(services.ServiceError) as refused:
        against(alice, mine, rated=True)
    assert refused.value.code == "ggp_own_program"
    assert "Nobody Home is a GGP player you registered" in refused.value.message
    assert not Match.objects.exists()
    assert not against(alice, mine, rated=False).rated


def test_someone_elses_program_online_may_be_played_rated():
    alice, bob = make_accounts(2)
    assert against(alice, registered(bob, "Bobs Engine"), rated=True).rated


@pytest.mark.parametrize("status", [GGPPlayer.Status.AWAY, GGPPlayer.Status.BUSY, GGPPlayer.Status.CHECKING])
def test_a_program_that_is_not_online_is_not_seated_in_a_rated_match(status):
    alice, bob = make_accounts(2)
    silent = registered(bob, "Silent", status)
    with pytest.raises(services.ServiceError) as refused:
        against(alice, silent, rated=True)
    assert refused.value.code == "ggp_not_online" and refused.value.message.startswith("Silent ")
    assert not Match.objects.exists()
    assert not against(alice, silent, rated=False).rated


def test_the_owner_may_not_join_a_rated_match_that_seats_their_program():
    """Bob's rated three-player match seats Alice's program; Alice may not take its free seat,
    Carol may (and the match starts)."""
    alice, bob, carol = make_accounts(3)
    program = registered(alice, "Alices Engine")
    match = services.match_create(user=bob, settings=MatchSettings("tictactoe-3player", True, PER_MOVE),
                                  role="xplayer", ggp_players={"oplayer": program.pk})
    with pytest.raises(services.ServiceError) as refused:
        services.seat_join(match_id=match.pk, user=alice)
    assert refused.value.code == "ggp_own_program"
    assert services.seat_join(match_id=match.pk, user=carol).status == Match.Status.ACTIVE


def test_the_ggp_page_says_why_a_match_against_ones_own_program_is_not_rated():
    [alice] = make_accounts(1)
    mine = registered(alice, "Nobody Home")
    client = Client()
    client.force_login(alice)
    answer = client.post(f"/ggp/{mine.pk}/play/", {"game": "tictactoe-x9", "clock": "m5/3", "rated": "on"},
                         follow=True)
    assert answer.redirect_chain[-1][0] == "/ggp/"
    assert "a match against your own program cannot be rated" in answer.content.decode()
    assert not Match.objects.exists()


def test_the_ggp_page_offers_rated_only_against_others_programs_online():
    alice, bob = make_accounts(2)
    registered(alice, "Mine")
    registered(bob, "Theirs")
    registered(bob, "Theirs Asleep", GGPPlayer.Status.AWAY)
    client = Client()
    client.force_login(alice)
    page = client.get("/ggp/").content.decode()
    forms = {name: page.split(f"Play {name}</button>")[0].rsplit("<form", 1)[1]
             for name in ["Mine", "Theirs", "Theirs Asleep"]}
    assert ['name="rated"' in forms[name] for name in forms] == [False, True, False]


# -- the pair limit: a program counts as its owner ---------------------------------------------------

def beaten(user, player: GGPPlayer) -> Match:
    """A rated match of ``user`` against ``player`` that ``user`` wins: its program account
    resigns once both have moved (its turn played at random)."""
    match = first_moves(against(user, player, rated=True), user)
    services.match_resign(match_id=match.pk, user=player.account)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["winners"] == ["xplayer"]
    return match


def first_moves(match: Match, person) -> Match:
    """The person's first move, and the programs' (played at random after it, inline): the match has begun."""
    game = get_game(match.game)
    services.move_submit(match_id=match.pk, user=person, version=match.version,
                         action=game.legal_actions(game.state_from_json(match.state))[0])
    match.refresh_from_db()
    assert match.plies == len(game.roles) and match.status == Match.Status.ACTIVE
    return match


def rated_against(match: Match, role: str) -> bool:
    return Seat.objects.get(match=match, role=role).rating_after is not None


def test_a_second_accounts_programs_count_as_that_account_under_the_pair_limit(capsys):
    """Mallory registers programs that play at random; Alice beats one rated, then another the
    same day (not rated: Alice and Mallory's pair counted today), then Mallory herself (not
    rated either). Carol's pair with Mallory is her own. A day later a third program counts
    again, and Mallory is one opponent of Alice's, not three. The recompute agrees."""
    alice, mallory, carol = make_accounts(3)
    with PlayerServer(fumbling) as server:
        first, second, third = (services.ggp_player_register(owner=mallory, name=f"Fumbler {n}", url=server.url)
                                for n in (1, 2, 3))
        counted = beaten(alice, first)
        assert rated_against(counted, "xplayer")
        again = beaten(alice, second)
        assert not rated_against(again, "xplayer") and not rated_against(again, "oplayer")
        assert Seat.objects.get(match=again, role="xplayer").unrated_against == "oplayer"
        herself = play_first_moves(start_match("tictactoe-x9", [alice, mallory], rated=True), [alice, mallory])
        services.match_resign(match_id=herself.pk, user=mallory)
        assert not rated_against(herself, "xplayer")
        assert rated_against(beaten(carol, second), "xplayer")
        day_ago = timezone.now() - timedelta(hours=24)  # a day passes
        Match.objects.filter(finished_at__isnull=False).update(finished_at=day_ago)
        Rating.objects.filter(last_played__isnull=False).update(last_played=day_ago)
        services.ggp_player_remove(owner=mallory, player_id=first.pk)  # removed, it still stands for Mallory
        assert rated_against(beaten(alice, third), "xplayer")
    rating = Rating.objects.get(player=alice, game="tictactoe-x9")
    assert (rating.games, rating.opponents) == (2, 1)
    call_command("ratings_recompute")
    assert "; 0 stored values differed" in capsys.readouterr().out


def test_two_programs_of_one_owner_in_a_three_player_match_are_one_opponent():
    """Alice against two of Mallory's programs: her result counts against one of them only, and
    theirs against each other not at all."""
    alice, mallory = make_accounts(2)
    with PlayerServer(fumbling) as server:
        one, two = (services.ggp_player_register(owner=mallory, name=f"Fumbler {n}", url=server.url) for n in (1, 2))
        match = services.match_create(user=alice, settings=MatchSettings("tictactoe-3player", True, PER_MOVE),
                                      role="xplayer", ggp_players={"oplayer": one.pk, "zplayer": two.pk})
        match = first_moves(match, alice)
        services.match_resign(match_id=match.pk, user=one.account)
        services.match_resign(match_id=match.pk, user=two.account)
    seats = {s.role: s for s in Seat.objects.filter(match=match)}
    assert (seats["xplayer"].unrated_against, seats["oplayer"].unrated_against,
            seats["zplayer"].unrated_against) == ("zplayer", "zplayer", "oplayer xplayer")
    assert seats["zplayer"].rating_after is None
    assert Rating.objects.get(player=alice, game="tictactoe-3player").opponents == 1


# -- a program that does not play: the match is called off, or the program loses ---------------------

def steady(match: Match) -> Match:
    """The same moves at random in ``match`` on every run (its random token fixed: one whose
    game goes on as long as these tests need)."""
    Match.objects.filter(pk=match.pk).update(random_token="a long game")
    return match


def person_moves(match: Match, person, count: int) -> Match:
    """``person``'s next ``count`` turns (a legal move each), the program's answered after each (inline)."""
    game = get_game(match.game)
    for _ in range(count):
        match.refresh_from_db()
        assert match.status == Match.Status.ACTIVE, match.result
        legal = game.legal_actions(game.state_from_json(match.state))
        services.move_submit(match_id=match.pk, user=person, version=match.version,
                             action=legal[match.plies % 7 % len(legal)])
    match.refresh_from_db()
    return match


def test_a_rated_match_whose_program_never_plays_a_move_of_its_own_is_called_off():
    """The farming: Mallory's program answers START ready and then no PLAY with a move, so
    every one of its turns was played at random until the end, and Alice beat random moves
    rated. Now its first turns (two: one slip is forgiven) with no move of its own call the
    match off: no result, nobody rated, the program hears ABORT."""
    alice, mallory = make_accounts(2)
    with PlayerServer(fumbling) as server:
        program = services.ggp_player_register(owner=mallory, name="Fumbler", url=server.url)
        match = person_moves(against(alice, program, rated=True), alice, 1)
        assert match.status == Match.Status.ACTIVE and match.plies == 2  # its first turn at random: one slip
        match = person_moves(match, alice, 1)
        assert match.status == Match.Status.ABORTED
        assert match.result["reason"] == "oplayer made no move of its own in its first 2 turns"
        assert server.bodies()[-1].startswith("(ABORT ")
    assert list(ReplacedMove.objects.filter(match=match).values_list("ply", "reason")) == [(2, "illegal")]
    assert match.plies == 3, "the second turn is not played at random: the match is called off instead"
    assert not Rating.objects.filter(games__gt=0).exists()
    assert not Seat.objects.filter(match=match, rating_after__isnull=False).exists()


def test_a_program_that_stops_playing_in_a_rated_match_loses_on_time():
    """It made a move of its own, then answered nothing legal three turns in a row: it has
    left, and loses on time (rated), as a bot that stops moving does on lichess; two misses
    were still played at random."""
    alice, mallory = make_accounts(2)
    with GGPTestPlayer(misbehave={2: "illegal", 3: "illegal", 4: "illegal"}, seed=3) as player:
        program = services.ggp_player_register(owner=mallory, name="Quitter", url=player.url)
        match = person_moves(steady(against(alice, program, rated=True)), alice, 3)
        assert match.status == Match.Status.ACTIVE and match.plies == 6
        match = person_moves(match, alice, 1)
        assert player.messages[-1] == "STOP"
    assert match.status == Match.Status.FINISHED and match.result["winners"] == ["xplayer"]
    assert match.result["reason"] == "oplayer ran out of time: no move of its own in 3 turns in a row"
    assert list(ReplacedMove.objects.filter(match=match).values_list("ply", "reason")) == [(4, "illegal"),
                                                                                          (6, "illegal")]
    seat = Seat.objects.get(match=match, role="oplayer")
    assert (seat.out, seat.outcome) == ("time", "lost")
    assert rated_against(match, "xplayer") and rated_against(match, "oplayer")


def no_manager(monkeypatch) -> None:
    """No task of the manager runs: the test plays the program's turns itself."""
    from games.ggp import offpath

    monkeypatch.setattr(offpath, "run", lambda name, *args: None)


def program_turns(match: Match, person, program: GGPPlayer, turns: list[str]) -> Match:
    """After each of ``person``'s moves, the program's turn: ``"move"`` (a move of its own),
    else played in its place for that reason (``move_replace``, as the manager does)."""
    game = get_game(match.game)
    for turn in turns:
        match = person_moves(match, person, 1)
        legal = game.legal_actions(game.state_from_json(match.state))
        if turn == "move":
            services.move_submit(match_id=match.pk, user=program.account, action=legal[0], version=match.version)
        else:
            services.move_replace(match_id=match.pk, version=match.version, role="oplayer", reason=turn)
        match.refresh_from_db()
    return match


@pytest.mark.parametrize("rated", [True, False])
def test_turns_the_server_lost_are_not_the_programs_and_a_casual_match_plays_on_at_random(rated, monkeypatch):
    """A turn whose answer the server lost (a restarted worker) is neither a move of the
    program's nor a miss: it does not call the match off or end it. Casual matches keep the
    GGP way: every missed turn at random, the match goes on."""
    no_manager(monkeypatch)
    alice, mallory = make_accounts(2)
    program = registered(mallory, "Unlucky")
    match = program_turns(steady(against(alice, program, rated=rated)), alice, program, ["lost", "silent"])
    assert match.status == Match.Status.ACTIVE
    match = program_turns(match, alice, program, ["move", "late", "lost", "illegal"])
    assert match.status == Match.Status.ACTIVE
    match = program_turns(match, alice, program, ["silent"])
    assert match.status == (Match.Status.FINISHED if rated else Match.Status.ACTIVE)
    assert ReplacedMove.objects.filter(match=match).count() == (5 if rated else 6)


def flagged_turns(match: Match, person, count: int, fake_time) -> Match:
    """After each of ``person``'s next ``count`` moves, the program's turn left to the flag: no
    task of the manager acts (``no_manager``), so it falls once the play clock and twice the
    grace have passed (``manager.flag_deadline``)."""
    for _ in range(count):
        match = person_moves(match, person, 1)
        fake_time.advance((match.deadline - fake_time.now).total_seconds() + 2 * settings.GGP_GRACE_SECONDS + 1)
        services.clock_flag(match_id=match.pk)
        match.refresh_from_db()
    return match


def test_turns_the_flag_plays_because_the_manager_is_gone_are_the_servers_not_the_programs(fake_time, monkeypatch):
    """The flag plays a program's turn only when the manager's process is gone: the server's
    failure, recorded as an answer lost, like a restarted worker's. After two misses of its own
    they do not lose the program a rated match it has moved in, nor break the run of its misses."""
    no_manager(monkeypatch)
    alice, mallory = make_accounts(2)
    program = registered(mallory, "Orphaned")
    match = program_turns(steady(against(alice, program, rated=True)), alice, program, ["move", "late", "late"])
    match = flagged_turns(match, alice, absence.SERVER_LOST - 1, fake_time)
    assert match.status == Match.Status.ACTIVE
    assert list(ReplacedMove.objects.filter(match=match).values_list("ply", "reason")) == [
        (4, "late"), (6, "late"), (8, "lost"), (10, "lost")]
    match = program_turns(match, alice, program, ["late"])
    assert match.status == Match.Status.FINISHED and match.result["winners"] == ["xplayer"]
    assert Seat.objects.get(match=match, role="oplayer").out == "time"


def turns_lost_by_the_server(lost: int, fake_time, monkeypatch) -> Match:
    """A rated match against a program whose manager's process is gone: the flag plays its turns
    (answers lost), ``lost`` of them, not in a row, between moves of its own."""
    no_manager(monkeypatch)
    alice, mallory = make_accounts(2)
    program = registered(mallory, "Stranded")
    match = program_turns(steady(against(alice, program, rated=True)), alice, program, ["move"])
    match = flagged_turns(match, alice, 1, fake_time)
    match = program_turns(match, alice, program, ["move"])
    return flagged_turns(match, alice, lost - 1, fake_time)


def test_a_rated_match_whose_programs_answers_the_server_keeps_losing_is_called_off(fake_time, monkeypatch):
    """The manager's process is gone for good: the flag plays each of the program's turns as an
    answer lost, which counts neither way, so the match went on at random to a rated end. Now
    the server's ``SERVER_LOST``th lost turn of the program, in a row or not, calls the match off
    instead: nobody rated, and the pages say why."""
    match = turns_lost_by_the_server(absence.SERVER_LOST, fake_time, monkeypatch)
    assert match.status == Match.Status.ABORTED and match.rated
    assert match.result == {"aborted": True, "reason": "the server lost oplayer's answers in 3 turns"}
    assert list(ReplacedMove.objects.filter(match=match).values_list("ply", "reason")) == [(4, "lost"), (8, "lost")]
    assert match.plies == 9, "the third lost turn is not played at random: the match is called off instead"
    assert not Rating.objects.filter(games__gt=0).exists()
    assert not Seat.objects.filter(match=match, rating_after__isnull=False).exists()
    assert "Aborted: not rated. The server lost Stranded&#x27;s answers in 3 turns." in Client().get(
        f"/matches/{match.pk}/replay/").content.decode()


def test_one_turn_fewer_lost_by_the_server_keeps_the_match_rated(fake_time, monkeypatch):
    match = turns_lost_by_the_server(absence.SERVER_LOST - 1, fake_time, monkeypatch)
    assert match.status == Match.Status.ACTIVE
    services.match_resign(match_id=match.pk, user=match.seats.get(role="xplayer").player)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["winners"] == ["oplayer"]
    assert rated_against(match, "xplayer") and rated_against(match, "oplayer")


@pytest.mark.parametrize("reason", ["lost", "late"])
def test_a_casual_match_plays_on_however_many_turns_are_played_at_random(reason, monkeypatch):
    """The GGP way: nothing is rated, so no count of turns played in a program's place ends it."""
    no_manager(monkeypatch)
    alice, mallory = make_accounts(2)
    program = registered(mallory, "Casual")
    turns = ["move", *[reason] * max(absence.SERVER_LOST, absence.IN_A_ROW)]
    match = program_turns(steady(against(alice, program, rated=False)), alice, program, turns)
    assert match.status == Match.Status.ACTIVE
    assert ReplacedMove.objects.filter(match=match).count() == len(turns) - 1


def test_the_turns_of_a_program_removed_mid_match_are_its_owners_misses(fake_time, monkeypatch):
    """Its owner removed the program during a rated match: the manager no longer calls it and the
    flag plays its turns, as too late (the owner's doing, not the server's): three in a row
    lose the match on time."""
    no_manager(monkeypatch)
    alice, mallory = make_accounts(2)
    program = registered(mallory, "Withdrawn")
    match = program_turns(steady(against(alice, program, rated=True)), alice, program, ["move"])
    services.ggp_player_remove(owner=mallory, player_id=program.pk)
    match = flagged_turns(match, alice, absence.IN_A_ROW - 1, fake_time)
    assert match.status == Match.Status.ACTIVE
    assert list(ReplacedMove.objects.filter(match=match).values_list("ply", "reason")) == [(4, "late"), (6, "late")]
    match = flagged_turns(match, alice, 1, fake_time)
    assert match.status == Match.Status.FINISHED and match.result["winners"] == ["xplayer"]
