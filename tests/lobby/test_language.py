"""Choosing the language: the browser's Accept-Language on a first visit, the footer's menu
(the cookie, and the account), and the account's choice on another browser."""

import pytest
from django.conf import settings
from django.test import Client

from lobby.models import User
from tests.support.players import make_accounts, make_players

pytestmark = pytest.mark.django_db


def test_a_first_visit_follows_the_browsers_language():
    page = Client().get("/login/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5")
    assert page["Content-Language"] == "de"
    html = page.content.decode()
    assert '<html lang="de">' in html and "<h1 id=\"login-title\">Anmelden</h1>" in html
    assert 'lang="de" selected>Deutsch</option>' in html  # the footer's menu shows the language in use


def test_a_language_the_site_lacks_falls_back_to_english():
    page = Client().get("/login/", HTTP_ACCEPT_LANGUAGE="ja,zh;q=0.8")
    assert page["Content-Language"] == "en" and "<h1 id=\"login-title\">Log in</h1>" in page.content.decode()


def test_the_menu_sets_the_cookie_and_returns_to_the_page():
    client = Client()
    answer = client.post("/language/", {"language": "fr", "next": "/signup/"}, HTTP_ACCEPT_LANGUAGE="de")
    assert answer.status_code == 302 and answer["Location"] == "/signup/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"
    assert "S’inscrire" in client.get("/signup/", HTTP_ACCEPT_LANGUAGE="de").content.decode()


def test_the_menu_keeps_the_choice_on_the_account_and_it_follows_the_account():
    (member,) = make_accounts(1)
    client = Client()
    client.force_login(member, backend="lobby.auth.Backend")
    client.post("/language/", {"language": "es", "next": "/"})
    assert User.objects.get(pk=member.pk).language == "es"

    elsewhere = Client()  # another browser, which says German, signs in: the account's Spanish wins
    signed_in = elsewhere.post("/login/", {"username": member.username, "password": "a long enough password"},
                               HTTP_ACCEPT_LANGUAGE="de")
    assert signed_in.status_code == 302
    page = elsewhere.get("/account/notifications/", HTTP_ACCEPT_LANGUAGE="de")
    assert page["Content-Language"] == "es" and "Notificaciones" in page.content.decode()
    assert elsewhere.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"


def test_a_guest_that_never_chose_reads_the_browsers_language():
    (guest,) = make_players(1)
    client = Client()
    client.force_login(guest, backend="lobby.auth.Backend")
    assert client.get("/signup/", HTTP_ACCEPT_LANGUAGE="es").headers["Content-Language"] == "es"
    assert "language" not in client.cookies or not client.cookies.get(settings.LANGUAGE_COOKIE_NAME)


@pytest.mark.parametrize("language", ["klingon", "", "xx-not"])
def test_a_language_the_site_does_not_offer_changes_nothing(language):
    (member,) = make_accounts(1)
    client = Client()
    client.force_login(member, backend="lobby.auth.Backend")
    answer = client.post("/language/", {"language": language, "next": "/signup/"})
    assert answer.status_code == 302
    assert User.objects.get(pk=member.pk).language == ""
    assert settings.LANGUAGE_COOKIE_NAME not in answer.cookies


def test_the_menu_takes_no_get_and_no_outside_address():
    assert Client().get("/language/").status_code == 405
    answer = Client().post("/language/", {"language": "de", "next": "https://evil.example/"})
    assert answer.status_code == 302 and not answer["Location"].startswith("https://evil")


def test_the_scripts_catalogue_is_in_the_pages_language_and_cached():
    client = Client()
    german = client.get("/jsi18n/?l=de", HTTP_ACCEPT_LANGUAGE="de")
    assert "Push-Benachrichtigungen sind in diesem Browser aus." in german.content.decode()
    assert "max-age=3600" in german["Cache-Control"]
    english = client.get("/jsi18n/?l=en", HTTP_ACCEPT_LANGUAGE="en")
    assert "Push-Benachrichtigungen" not in english.content.decode()
