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


def test_an_email_goes_in_the_recipients_language(smtp):
    """The account's language, not the sender's page's: the notice is sent off any request."""
    one, two = make_accounts(2)
    one.language, two.language = "de", "fr"
    one.save(update_fields=["language"])
    two.save(update_fields=["language"])
    opt_in(one, "email_turn", email="one@example.org")
    opt_in(two, "email_challenge", email="two@example.org")
    deliver(Notice(kind="turn", user_id=one.pk, key=3, watched_match=3, path="/matches/3/",
                   game="Quarto", by="member 2"))
    deliver(Notice(kind="challenge", user_id=two.pk, key=one.pk, path="/", game="Quarto", by="member 1"))
    german, french = smtp.messages
    assert german["Subject"] == "Boardhall: Du bist am Zug: Quarto"
    assert "member 2 hat gezogen: du bist in deiner Partie Quarto am Zug." in german.get_content()
    assert "wenn du in einer Fernpartie am Zug bist" in german.get_content()
    assert french["Subject"] == "Boardhall: member 1 vous défie"
    assert "Ne plus recevoir ces e-mails (un clic)" in french.get_content()
