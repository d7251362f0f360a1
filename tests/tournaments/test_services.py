"""Tournament writes through the real services: creating (and what is refused), joining and
withdrawing, starting or cancelling, the round robin's games, scores and Sonneborn-Berger from
games finished through games.services, and real-time rounds one after another."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import services as games
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.models import Match
from games.rules import get_game
from games.services.finishing import ENDED
from notify.models import Preference
from tests.support.notify import SmtpServer, opt_in
from tests.support.players import make_accounts, make_players, play_first_moves, start_match
from tournaments import formats, selectors, services
from tournaments.models import Entry, Tournament, TournamentGame

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "nine-board-tictactoe"
X, O = get_game(GAME).roles
CORRESPONDENCE = TimeControl(days=1)
REAL_TIME = TimeControl(base=300, increment=3)


@pytest.fixture
def smtp(settings):
    """A mail server of the test's own, which the site sends through."""
    with SmtpServer() as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
        settings.SITE_URL = "https://boardhall.test"
        yield server


def create(user, **overrides):
    arguments = {"name": "Friday round robin", "game": GAME, "time_control": CORRESPONDENCE,
                 "starts_at": timezone.now() + timedelta(minutes=10), "min_players": 2, "max_players": 8}
    return services.tournament_create(user=user, **{**arguments, **overrides})


def running(players, **overrides) -> Tournament:
    """A tournament created by ``players[0]``, joined by the others in order, started."""
    tournament = create(players[0], **overrides)
    for player in players[1:]:
        services.tournament_join(tournament_id=tournament.pk, user=player, invite=tournament.invite_secret)
    return services.tournament_start(tournament_id=tournament.pk, user=players[0])


def win(game: TournamentGame, winner) -> None:
    """Both players move, then the loser resigns."""
    match = play_first_moves(game.match, [game.first, game.second])
    loser = game.second if winner == game.first else game.first
    games.match_resign(match_id=match.pk, user=loser)


def draw(game: TournamentGame) -> None:
    match = play_first_moves(game.match, [game.first, game.second])
    games.draw_offer(match_id=match.pk, user=game.first)
    games.draw_accept(match_id=match.pk, user=game.second)


def game_between(tournament, a, b) -> TournamentGame:
    return (TournamentGame.objects.select_related("match", "first", "second").filter(tournament=tournament)
            .get(first__in=[a, b], second__in=[a, b]))


def test_a_signed_up_account_creates_a_tournament_and_is_entered_in_it():
    (owner,) = make_accounts(1)
    tournament = create(owner, name="  Friday   round robin ", rated=True)
    assert (tournament.name, tournament.status, tournament.rated) == ("Friday round robin", "upcoming", True)
    assert TimeControl.of(tournament) == CORRESPONDENCE
    assert list(Entry.objects.filter(tournament=tournament).values_list("player", flat=True)) == [owner.pk]


@pytest.mark.parametrize("overrides, code", [
    ({"name": " "}, "bad_name"),
    ({"name": "x" * 61}, "bad_name"),
    ({"game": "chess"}, "unknown_game"),
    ({"game": "tictactoe-3player"}, "two_players_only"),
    ({"time_control": TimeControl(start=30, play=10)}, "no_per_move"),
    ({"cycles": 3}, "bad_cycles"),
    ({"min_players": 5, "max_players": 4}, "bad_player_counts"),
    ({"max_players": 21}, "bad_player_counts"),
    ({"min_players": 1}, "bad_player_counts"),
    ({"starts_at": timezone.now() - timedelta(minutes=1)}, "starts_in_past"),
    ({"starts_at": timezone.now() + timedelta(days=31)}, "starts_too_late"),
])
def test_what_cannot_be_run_is_refused_and_nothing_is_made(overrides, code):
    (owner,) = make_accounts(1)
    with pytest.raises(ServiceError) as refused:
        create(owner, **overrides)
    assert refused.value.code == code
    assert not Tournament.objects.exists()


def test_a_three_player_round_robin_is_refused_with_what_to_choose_instead():
    (owner,) = make_accounts(1)
    with pytest.raises(ServiceError, match="so it is played as a Swiss. Choose Swiss."):
        create(owner, game="tictactoe-3player")
    assert not Tournament.objects.exists()


def test_guests_neither_create_nor_join():
    (guest,) = make_players(1)
    (owner,) = make_accounts(1)
    with pytest.raises(ServiceError) as refused:
        create(guest)
    assert refused.value.code == "account_needed"
    tournament = create(owner)
    with pytest.raises(ServiceError, match="signed-up accounts"):
        services.tournament_join(tournament_id=tournament.pk, user=guest)
    assert Entry.objects.filter(tournament=tournament).count() == 1


def test_an_account_runs_a_limited_number_of_unfinished_tournaments(settings):
    settings.TOURNAMENTS_OPEN_MAX = 2
    (owner,) = make_accounts(1)
    first, _ = create(owner), create(owner)
    with pytest.raises(ServiceError) as refused:
        create(owner)
    assert refused.value.code == "too_many_tournaments"
    services.tournament_start(tournament_id=first.pk, user=owner)  # alone: cancelled, so finished
    assert create(owner).status == "upcoming"


def test_players_join_and_withdraw_before_the_start():
    owner, ann = make_accounts(2)
    tournament = create(owner)
    services.tournament_join(tournament_id=tournament.pk, user=ann)
    with pytest.raises(ServiceError) as again:
        services.tournament_join(tournament_id=tournament.pk, user=ann)
    assert again.value.code == "already_joined"
    services.tournament_withdraw(tournament_id=tournament.pk, user=ann)
    assert Entry.objects.get(player=ann).withdrawn
    with pytest.raises(ServiceError) as not_in:
        services.tournament_withdraw(tournament_id=tournament.pk, user=ann)
    assert not_in.value.code == "not_joined"
    services.tournament_join(tournament_id=tournament.pk, user=ann)
    assert not Entry.objects.get(player=ann).withdrawn


def test_a_full_tournament_takes_nobody_more():
    owner, ann, bob = make_accounts(3)
    tournament = create(owner, max_players=2)
    services.tournament_join(tournament_id=tournament.pk, user=ann)
    with pytest.raises(ServiceError) as refused:
        services.tournament_join(tournament_id=tournament.pk, user=bob)
    assert refused.value.code == "full"


def test_a_private_tournament_is_joined_by_its_invite_secret_only():
    owner, ann = make_accounts(2)
    tournament = create(owner, is_private=True)
    with pytest.raises(ServiceError) as refused:
        services.tournament_join(tournament_id=tournament.pk, user=ann, invite="guess")
    assert refused.value.code == "not_found"
    services.tournament_join(tournament_id=tournament.pk, user=ann, invite=tournament.invite_secret)
    assert Entry.objects.filter(tournament=tournament, player=ann).exists()


def test_nobody_joins_or_withdraws_once_it_has_started():
    owner, ann, bob = make_accounts(3)
    tournament = running([owner, ann])
    for action in (services.tournament_join, services.tournament_withdraw):
        with pytest.raises(ServiceError) as refused:
            action(tournament_id=tournament.pk, user=bob if action is services.tournament_join else ann)
        assert refused.value.code == "not_upcoming"


def test_only_the_creator_starts_it_early():
    owner, ann = make_accounts(2)
    tournament = create(owner)
    services.tournament_join(tournament_id=tournament.pk, user=ann)
    with pytest.raises(ServiceError) as refused:
        services.tournament_start(tournament_id=tournament.pk, user=ann)
    assert refused.value.code == "not_creator"
    with pytest.raises(ServiceError) as early:
        services.tournament_start(tournament_id=tournament.pk)
    assert early.value.code == "not_yet"
    assert Tournament.objects.get(pk=tournament.pk).status == "upcoming"


def test_too_few_players_at_the_start_cancel_it_and_say_why():
    owner, ann = make_accounts(2)
    tournament = create(owner, min_players=3)
    services.tournament_join(tournament_id=tournament.pk, user=ann)
    tournament = services.tournament_start(tournament_id=tournament.pk, user=owner)
    assert tournament.status == "cancelled"
    assert tournament.status_reason == "Cancelled: 2 players joined, and it needed at least 3."
    assert not TournamentGame.objects.exists() and not Match.objects.exists()


def test_the_sweep_starts_what_is_due_and_leaves_what_is_not():
    owner, ann = make_accounts(2)
    due, later = create(owner), create(owner, starts_at=timezone.now() + timedelta(hours=2))
    for tournament in (due, later):
        services.tournament_join(tournament_id=tournament.pk, user=ann)
    assert services.tournaments_sweep(now=timezone.now() + timedelta(minutes=11)) == 1
    assert Tournament.objects.get(pk=due.pk).status == "running"
    assert Tournament.objects.get(pk=later.pk).status == "upcoming"


def test_a_correspondence_round_robin_creates_every_game_at_the_start():
    players = make_accounts(4)
    tournament = running(players, cycles=2)
    assert (tournament.status, tournament.rounds, tournament.current_round) == ("running", 6, 6)
    tournament_games = list(TournamentGame.objects.filter(tournament=tournament).select_related("match"))
    assert len(tournament_games) == 12
    for game in tournament_games:
        seats = {s.role: s.player_id for s in game.match.seats.all()}
        assert seats == {X: game.first_id, O: game.second_id}
        assert game.match.status == "active" and game.match.clock_days == 1


def test_scores_and_sonneborn_berger_follow_the_games_finished_through_the_games_services():
    ann, bob, cat = make_accounts(3)
    tournament = running([ann, bob, cat])
    win(game_between(tournament, ann, bob), ann)
    draw(game_between(tournament, bob, cat))
    win(game_between(tournament, cat, ann), cat)
    assert dict(Entry.objects.filter(tournament=tournament).values_list("player", "score")) == {
        ann.pk: 1.0, bob.pk: 0.5, cat.pk: 1.5}
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    rows = selectors.tournament_page(tournament)["standings"]
    assert [(r.player, r.score, r.tie_break) for r in rows] == [
        (cat, 1.5, 1.0 + 0.5 * 0.5), (ann, 1.0, 0.5), (bob, 0.5, 0.5 * 1.5)]


def test_a_real_time_round_robin_begins_each_round_when_the_last_game_of_the_one_before_ends():
    ann, bob, cat = make_accounts(3)
    tournament = running([ann, bob, cat], time_control=REAL_TIME)
    assert (tournament.rounds, tournament.current_round) == (3, 1)
    for number in (1, 2, 3):
        games_now = TournamentGame.objects.filter(tournament=tournament, match__isnull=False)
        assert games_now.count() == number  # one game a round: the third player has the bye
        current = games_now.select_related("match", "first", "second").get(round=number)
        assert current.match.status == "active" and current.match.clock_base == 300
        win(current, ann if ann.pk in (current.first_id, current.second_id) else current.first)
    tournament.refresh_from_db()
    assert tournament.status == "finished" and tournament.finished_at is not None
    scores = dict(Entry.objects.filter(tournament=tournament).values_list("player", "score"))
    assert scores[ann.pk] == 2.0 and sorted([scores[bob.pk], scores[cat.pk]]) == [0.0, 1.0]


def test_a_game_called_off_before_it_began_scores_nothing_and_the_round_moves_on():
    ann, bob = make_accounts(2)
    tournament = running([ann, bob], time_control=REAL_TIME, cycles=2)
    first = TournamentGame.objects.select_related("match").get(tournament=tournament, round=1)
    games.match_abort(match_id=first.match_id, user=ann)
    second = TournamentGame.objects.get(tournament=tournament, round=2)
    assert second.match_id is not None and (second.first, second.second) == (first.second, first.first)
    assert set(Entry.objects.filter(tournament=tournament).values_list("score", flat=True)) == {0.0}


def test_a_player_busy_in_another_real_time_match_gets_the_game_once_free():
    ann, bob, cat = make_accounts(3)
    elsewhere = start_match(GAME, [bob, cat], time_control=REAL_TIME)
    tournament = running([ann, bob], time_control=REAL_TIME)
    waiting = TournamentGame.objects.get(tournament=tournament)
    assert waiting.match_id is None
    games.match_abort(match_id=elsewhere.pk, user=bob)
    services.tournaments_sweep()
    waiting.refresh_from_db()
    assert waiting.match_id is not None
    assert selectors.tournament_page(tournament)["games"][0].match_url == f"/matches/{waiting.match_id}/"


def test_the_match_end_hand_off_is_the_tournaments_own():
    assert ENDED.get().match_ended is formats.match_ended


def test_a_match_outside_any_tournament_ends_as_before():
    ann, bob = make_accounts(2)
    match = start_match(GAME, [ann, bob])
    games.match_abort(match_id=match.pk, user=ann)
    assert Match.objects.get(pk=match.pk).status == "aborted" and not Tournament.objects.exists()


def test_an_entrant_who_opted_in_hears_once_that_the_tournament_starts_soon(smtp):
    owner, ann, bob = make_accounts(3)
    tournament = create(owner, starts_at=timezone.now() + timedelta(minutes=30))
    for player in (ann, bob):
        services.tournament_join(tournament_id=tournament.pk, user=player)
    opt_in(ann, "email_tournament", email="ann@example.org")
    opt_in(bob, "email_turn", email="bob@example.org")  # an address, not this event
    services.tournaments_sweep(now=timezone.now() + timedelta(minutes=5))  # 25 minutes before: not yet
    assert smtp.messages == []

    for minutes in (22, 25):  # within ten minutes, twice: one email
        services.tournaments_sweep(now=timezone.now() + timedelta(minutes=minutes))
    (mail,) = smtp.messages
    assert mail["X-Envelope-To"] == "ann@example.org"
    assert mail["Subject"] == "Boardhall: Friday round robin starts soon"
    body = mail.get_content()
    assert f"https://boardhall.test/tournaments/{tournament.pk}/" in body
    link = re.search(r"Stop these emails \(one click\): https://boardhall\.test(/notifications/unsubscribe/\S+/)", body)[1]
    assert Client().post(link).status_code == 200  # the mail reader's button: no login
    assert not Preference.objects.get(user=ann).email_tournament


def test_a_withdrawn_entrant_hears_nothing_of_the_start(smtp):
    owner, ann = make_accounts(2)
    tournament = create(owner, starts_at=timezone.now() + timedelta(minutes=30))
    services.tournament_join(tournament_id=tournament.pk, user=ann)
    services.tournament_withdraw(tournament_id=tournament.pk, user=ann)
    opt_in(ann, "email_tournament", email="ann@example.org")
    services.tournaments_sweep(now=timezone.now() + timedelta(minutes=25))
    assert smtp.messages == []


def test_a_guest_entry_hears_nothing_of_the_start_whatever_is_stored(smtp):
    owner = make_accounts(1)[0]
    (guest,) = make_players(1)
    tournament = create(owner, starts_at=timezone.now() + timedelta(minutes=30))
    Entry.objects.create(tournament=tournament, player=guest)  # guests cannot join; stored anyway
    opt_in(guest, "email_tournament", email="guest@example.org")
    services.tournaments_sweep(now=timezone.now() + timedelta(minutes=25))
    assert smtp.messages == []
