"""The games' events reach the notifications (games/services/notices.py): a correspondence turn,
a challenge, a rematch offer, a followed player's new public match, told by email through a mail server of the test's own once the
service's transaction commits; never a real-time or untimed turn, never a guest."""

import logging

import pytest

from games import services
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.runtime import presence
from notify.models import Preference, SendLog
from social import services as social
from social.models import Follow
from tests.support.notify import SmtpServer, opt_in
from tests.support.players import make_accounts, make_players, play_out, start_match
from tests.support.waits import until_here

DAYS = TimeControl(days=2)


@pytest.fixture
def smtp(settings):
    with SmtpServer() as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
        yield server


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run what the services set going after their commit (a test's database work is one
    transaction that never commits)."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def told(smtp) -> list[tuple[str, str]]:
    return [(m["X-Envelope-To"], m["Subject"]) for m in smtp.messages]


def move(match, user):
    from games.rules import get_game

    game = get_game(match.game)
    services.move_submit(match_id=match.pk, user=user, action=game.legal_actions(game.state_from_json(match.state))[0],
                         version=match.version)
    match.refresh_from_db()
    return match


@pytest.mark.django_db
def test_each_correspondence_turn_is_told_to_the_player_to_move(smtp, committed):
    one, two = make_accounts(2)
    opt_in(one, "email_turn", email="one@example.org")
    opt_in(two, "email_turn", email="two@example.org")
    with committed():
        match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    assert told(smtp) == [("one@example.org", "Boardhall: Your turn: Nine-Board Tic-Tac-Toe")]
    with committed():
        match = move(match, one)
    assert told(smtp)[1:] == [("two@example.org", "Boardhall: Your turn: Nine-Board Tic-Tac-Toe")]
    assert "member 1 moved" in smtp.messages[1].get_content()
    with committed():
        move(match, two)
    assert [to for to, _ in told(smtp)] == ["one@example.org", "two@example.org", "one@example.org"]


@pytest.mark.django_db
@pytest.mark.parametrize("control", [TimeControl(base=300, increment=3), TimeControl()], ids=["real-time", "untimed"])
def test_no_turn_is_told_outside_correspondence(smtp, committed, control):
    one, two = make_accounts(2)
    opt_in(one, "email_turn", email="one@example.org")
    opt_in(two, "email_turn", email="two@example.org")
    with committed():
        match = start_match("nine-board-tictactoe", [one, two], time_control=control)
        move(match, one)
    assert smtp.messages == []


@pytest.mark.django_db
def test_a_turn_is_not_told_to_a_guest_nor_while_the_page_is_open(smtp, committed):
    (member,) = make_accounts(1)
    (guest,) = make_players(1)
    opt_in(member, "email_turn", email="member@example.org")
    Preference.objects.create(user=guest, email="guest@example.org", email_confirmed=True, email_turn=True)
    with committed():
        match = start_match("nine-board-tictactoe", [guest, member], time_control=DAYS)
    assert smtp.messages == []  # the guest moves first
    presence.store().enter(match.pk, "page-of-member", member.pk)
    with committed():
        move(match, guest)
    assert smtp.messages == []


@pytest.mark.django_db
def test_a_challenge_is_told_to_the_challenged_player(smtp, committed):
    one, two = make_accounts(2)
    opt_in(two, "email_challenge", email="two@example.org")
    with committed():
        services.challenge_create(user=one, to_id=two.pk, settings=MatchSettings("quarto-misere"))
    assert told(smtp) == [("two@example.org", "Boardhall: member 1 challenges you")]
    assert "member 1 challenges you to Misère Quarto" in smtp.messages[0].get_content()


@pytest.mark.django_db
def test_a_rematch_offer_is_told_to_the_player_it_waits_for_unless_their_page_shows_it(smtp, committed):
    one, two = make_accounts(2)
    opt_in(two, "email_rematch", email="two@example.org")
    first = play_out(start_match("nine-board-tictactoe", [one, two]), [one, two])
    with committed():
        services.rematch_offer(match_id=first.pk, user=one)
    assert told(smtp) == [("two@example.org", "Boardhall: member 1 offers a rematch")]
    assert f"/matches/{first.pk}/" in smtp.messages[0].get_content()
    second = play_out(start_match("nine-board-tictactoe", [one, two]), [one, two])
    presence.store().enter(second.pk, "page-of-two", two.pk)
    with committed():
        services.rematch_offer(match_id=second.pk, user=one)
    assert len(smtp.messages) == 1


@pytest.mark.django_db(transaction=True)
def test_sending_runs_off_the_committing_thread_and_a_dead_mail_server_never_breaks_a_move(settings, caplog):
    settings.NOTIFY_WORKERS = "thread"
    one, two = make_accounts(2)
    opt_in(two, "email_turn", email="two@example.org")
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    with SmtpServer() as smtp:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", smtp.port
        match = move(match, one)
        until_here(lambda: smtp.messages, "the turn's email")
    assert smtp.messages[0]["X-Envelope-To"] == "two@example.org"
    settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = 9, 2  # nothing listens there now
    opt_in(one, "email_turn", email="one@example.org")
    with caplog.at_level(logging.ERROR, logger="notify.delivery"):
        match = move(match, two)
        assert match.plies == 2  # the move stands
        until_here(lambda: "by email" in caplog.text, "the failure logged")


@pytest.mark.django_db
def test_a_followed_players_public_match_is_told_once_to_each_follower_who_opted_in(smtp, committed):
    one, two, fan, quiet, blocked = make_accounts(5)
    (guest,) = make_players(1)
    for follower in (fan, quiet, blocked):
        social.follow_create(user=follower, player_id=one.pk)
    Follow.objects.create(follower=guest, followed=one)  # guests cannot follow; stored anyway
    social.block_create(user=two, player_id=blocked.pk)  # blocked by the other player
    opt_in(fan, "email_followed", email="fan@example.org")
    opt_in(quiet, "email_turn", email="quiet@example.org")  # an address, not this event
    opt_in(blocked, "email_followed", email="blocked@example.org")
    opt_in(guest, "email_followed", email="guest@example.org")
    with committed():
        match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    assert told(smtp) == [("fan@example.org", "Boardhall: member 1 starts a match")]
    body = smtp.messages[0].get_content()
    assert "member 1, whom you follow, starts a public Nine-Board Tic-Tac-Toe match." in body
    assert f"/matches/{match.pk}/" in body and "/notifications/unsubscribe/" in body
    with committed():
        move(match, one)  # the match goes on: nothing more for the follower
    assert [to for to, _ in told(smtp)].count("fan@example.org") == 1
    assert SendLog.objects.filter(user=fan, kind="followed", key=one.pk).count() == 1


@pytest.mark.django_db
def test_a_followed_players_matches_started_together_are_told_once_an_hour(smtp, committed):
    one, two, three, fan = make_accounts(4)
    social.follow_create(user=fan, player_id=one.pk)
    opt_in(fan, "email_followed", email="fan@example.org")
    with committed():  # a round robin by correspondence starts all its matches at once
        start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
        start_match("quarto-misere", [three, one], time_control=DAYS)
    assert told(smtp) == [("fan@example.org", "Boardhall: member 1 starts a match")]


@pytest.mark.django_db
def test_a_followed_players_private_match_or_one_with_the_computer_is_not_told(smtp, committed):
    one, two, fan = make_accounts(3)
    social.follow_create(user=fan, player_id=one.pk)
    opt_in(fan, "email_followed", email="fan@example.org")
    with committed():
        start_match("nine-board-tictactoe", [one, two], is_private=True, time_control=DAYS)
        services.match_create(user=one, settings=MatchSettings("nine-board-tictactoe", False, DAYS),
                              against_computer=True)
    assert smtp.messages == []
