"""The rules of sending (notify/delivery.py), against the database, a mail server and a push
service of the test's own: who is told, on which channel, and how often."""

import logging
from datetime import timedelta

import pytest
from django.db import transaction

from games import services
from games.match.clocks import TimeControl
from games.rules import get_game
from games.runtime import presence
from notify.delivery import deliver, deliver_logged, notify_on_commit
from notify.events import Notice
from notify.models import SendLog
from tests.support.notify import opt_in
from tests.support.players import make_accounts, make_players, start_match

pytestmark = pytest.mark.django_db

DAYS = TimeControl(days=2)


def turn(match, user) -> Notice:
    return Notice(kind="turn", user_id=user.pk, key=match.pk, watched_match=match.pk, ply=match.plies,
                  path=f"/matches/{match.pk}/", game="Nine-Board Tic-Tac-Toe", by="member 1")


def play_one(match, user):
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    services.move_submit(match_id=match.pk, user=user, action=game.legal_actions(state)[0], version=match.version)
    match.refresh_from_db()
    return match


def test_nothing_is_sent_to_an_account_that_did_not_opt_in(smtp):
    one, two = make_accounts(2)
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    opt_in(two, email="two@example.org")  # an address, but no event chosen
    assert deliver(turn(match, two)) == []
    assert smtp.messages == []


def test_nothing_is_sent_to_a_guest_whatever_is_stored(smtp):
    guest, other = make_players(2)
    match = start_match("nine-board-tictactoe", [other, guest], time_control=DAYS)
    opt_in(guest, "email_turn", email="guest@example.org")
    assert deliver(turn(match, guest)) == []
    assert smtp.messages == []


def test_email_goes_only_to_a_confirmed_address(smtp):
    one, two = make_accounts(2)
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    preference = opt_in(two, "email_turn", email="two@example.org")
    preference.email_confirmed = False
    preference.save()
    assert deliver(turn(match, two)) == []
    preference.email_confirmed = True
    preference.save()
    assert deliver(turn(match, two)) == ["email"]
    assert smtp.messages[0]["To"] == "two@example.org"


def test_a_turn_is_told_once_an_hour_per_match_unless_the_player_moved_since(smtp):
    one, two = make_accounts(2)
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    opt_in(one, "email_turn", email="one@example.org")
    assert deliver(turn(match, one)) == ["email"]
    assert deliver(turn(match, one)) == []  # the same turn again within the hour
    match = play_one(play_one(match, one), two)  # the player moved, and it is their turn again
    assert deliver(turn(match, one)) == ["email"]
    assert deliver(turn(match, one)) == []
    SendLog.objects.filter(user=one).update(sent_at=SendLog.objects.get(user=one).sent_at - timedelta(minutes=61))
    assert deliver(turn(match, one)) == ["email"]  # an hour later, without a move
    assert len(smtp.messages) == 3


def test_the_throttle_counts_per_match(smtp):
    one, two = make_accounts(2)
    first = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    second = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    opt_in(one, "email_turn", email="one@example.org")
    assert deliver(turn(first, one)) == ["email"]
    assert deliver(turn(second, one)) == ["email"]


def test_nothing_is_sent_while_the_player_has_the_page_open(smtp):
    one, two = make_accounts(2)
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    opt_in(one, "email_turn", "email_challenge", email="one@example.org")
    presence.store().enter(match.pk, "page-1", one.pk)
    assert deliver(turn(match, one)) == []
    challenge = Notice(kind="challenge", user_id=one.pk, key=two.pk, path="/", game="Quarto", by="member 2")
    assert deliver(challenge) == ["email"]  # a page of the match is not a page of the site
    presence.store().enter(presence.SITE, "site-1", one.pk)
    assert deliver(Notice(kind="challenge", user_id=one.pk, key=99, path="/", game="Quarto", by="x")) == []
    presence.store().leave(match.pk, "page-1")
    assert deliver(turn(match, one)) == ["email"]  # closed: told now, and the throttle had not counted
    assert len(smtp.messages) == 2


def test_a_page_that_stopped_pinging_counts_as_closed(smtp, settings):
    one, two = make_accounts(2)
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    opt_in(one, "email_turn", email="one@example.org")
    settings.PRESENCE_TIMEOUT_SECONDS = -1  # every page's last ping is older than that
    presence.store().enter(match.pk, "page-1", one.pk)
    assert deliver(turn(match, one)) == ["email"]


def test_email_is_off_without_a_mail_server(settings):
    one, two = make_accounts(2)
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    opt_in(one, "email_turn", email="one@example.org")
    settings.EMAIL_HOST = ""
    assert deliver(turn(match, one)) == []


def test_a_mail_server_that_is_down_is_logged_and_the_push_still_goes(settings, push_service, caplog):
    one, two = make_accounts(2)
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    opt_in(one, "email_turn", "push_turn", email="one@example.org", push=push_service)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2  # nothing listens there
    with caplog.at_level(logging.ERROR, logger="notify.delivery"):
        assert deliver_logged(turn(match, one)) == ["push"]
    assert "by email" in caplog.text
    assert [d.message["title"] for d in push_service.delivered] == ["Your turn: Nine-Board Tic-Tac-Toe"]


def test_a_failure_before_sending_is_logged_not_raised(smtp, caplog, monkeypatch):
    one, two = make_accounts(2)
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    opt_in(one, "email_turn", email="one@example.org")
    monkeypatch.setattr("notify.delivery.claim", lambda notice: 1 / 0)
    with caplog.at_level(logging.ERROR, logger="notify.delivery"):
        assert deliver_logged(turn(match, one)) == []
    assert "ZeroDivisionError" in caplog.text


def test_a_notice_waits_for_the_commit_and_a_rolled_back_one_is_never_sent(smtp, django_capture_on_commit_callbacks):
    one, two = make_accounts(2)
    match = start_match("nine-board-tictactoe", [one, two], time_control=DAYS)
    opt_in(one, "email_turn", email="one@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            notify_on_commit(turn(match, one))
            assert smtp.messages == []
    assert len(smtp.messages) == 1
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                notify_on_commit(turn(match, one))
                raise RuntimeError("the move failed")
        except RuntimeError:
            pass
    assert callbacks == []
