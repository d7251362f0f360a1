"""Email (notify/mail.py) through a mail server of the test's own: what a player receives, and
that its one-click link works from the mail alone."""

import re

import pytest
from django.test import Client

from notify.delivery import deliver
from notify.events import Notice
from notify.models import Preference
from tests.support.notify import opt_in
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db

LINK = re.compile(r"https://boardhall\.test(/notifications/unsubscribe/[^/\s]+/)")


def test_a_rematch_email_names_the_match_and_unsubscribes_in_one_click(smtp):
    one, two = make_accounts(2)
    opt_in(one, "email_rematch", "email_turn", email="one@example.org")
    notice = Notice(kind="rematch", user_id=one.pk, key=7, watched_match=7, path="/matches/7/",
                    game="Misère Quarto", by="member 2")
    assert deliver(notice) == ["email"]
    (mail,) = smtp.messages
    assert mail["Subject"] == "Boardhall: member 2 offers a rematch"
    assert mail["X-Envelope-To"] == "one@example.org"
    body = mail.get_content()
    assert "member 2 offers you a rematch of your Misère Quarto match." in body
    assert "https://boardhall.test/matches/7/" in body
    path = LINK.search(body)[1]
    assert mail["List-Unsubscribe"].strip() == f"<https://boardhall.test{path}>"  # a long header is folded
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    answer = Client().post(path)  # a mail reader's button: no cookie, no CSRF token
    assert answer.status_code == 200
    preference = Preference.objects.get(user=one)
    assert not preference.email_rematch
    assert preference.email_turn  # only that event, only that channel
    assert deliver(notice) == []


def test_a_turn_email_says_whose_move_it_was(smtp):
    (one,) = make_accounts(1)
    opt_in(one, "email_turn", email="one@example.org")
    deliver(Notice(kind="turn", user_id=one.pk, key=3, watched_match=3, path="/matches/3/",
                   game="Nine-Board Tic-Tac-Toe", by="member 2"))
    (mail,) = smtp.messages
    assert mail["Subject"] == "Boardhall: Your turn: Nine-Board Tic-Tac-Toe"
    assert "member 2 moved: it is your turn in your Nine-Board Tic-Tac-Toe match." in mail.get_content()
    assert "when it is your turn in a correspondence match" in mail.get_content()
