"""The notification pages (notify/views.py): the settings page, the confirmation of an address,
the unsubscribe link (no login, any number of times, a clear page for a bad link), the push
subscription calls and the service worker."""

import json
import re

import pytest
from django.test import Client

from notify.models import Preference, PushSubscription, SendLog
from notify.tokens import confirm_token, unsubscribe_token
from tests.support.notify import b64url, opt_in
from tests.support.players import make_accounts, make_players

pytestmark = pytest.mark.django_db


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_settings_page_saves_the_choices_and_confirms_a_new_address_by_email(smtp, django_capture_on_commit_callbacks):
    (player,) = make_accounts(1)
    client = client_of(player)
    page = client.get("/account/notifications/")
    assert page.status_code == 200 and b"Your turn in a correspondence match" in page.content
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/account/notifications/", {"choices": ["email_turn", "push_challenge", "email_followed",
                                                                 "push_tournament"],
                                                    "email": "Me@Example.org"}, follow=True)
    assert b"Your notification settings are saved." in answer.content
    assert b"A player you follow starts a public match" in answer.content
    assert b"A tournament you entered is about to start" in answer.content
    preference = Preference.objects.get(user=player)
    assert (preference.email_turn, preference.push_challenge, preference.email_rematch) == (True, True, False)
    assert (preference.email_followed, preference.push_followed) == (True, False)
    assert (preference.email_tournament, preference.push_tournament) == (False, True)
    assert (preference.email, preference.email_confirmed) == ("Me@Example.org", False)
    (mail,) = smtp.messages
    assert mail["X-Envelope-To"] == "Me@Example.org"
    link = re.search(r"https://boardhall\.test(/notifications/confirm/\S+/)", mail.get_content())[1]
    confirmed = Client().get(link)  # from the mail, wherever it is opened
    assert confirmed.status_code == 200 and b"Address confirmed" in confirmed.content
    assert Preference.objects.get(user=player).email_confirmed

    with django_capture_on_commit_callbacks(execute=True):
        client.post("/account/notifications/", {"choices": ["email_turn"], "email": "me@example.org"})
    assert Preference.objects.get(user=player).email_confirmed  # the same address, another case
    assert len(smtp.messages) == 1


def test_a_second_new_address_within_a_minute_is_refused_and_changes_nothing(smtp, django_capture_on_commit_callbacks):
    (player,) = make_accounts(1)
    client = client_of(player)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/account/notifications/", {"email": "one@example.org"})
        answer = client.post("/account/notifications/", {"choices": ["email_turn"], "email": "two@example.org"}, follow=True)
    assert b"wait a minute" in answer.content
    preference = Preference.objects.get(user=player)
    assert (preference.email, preference.email_turn) == ("one@example.org", False)
    assert len(smtp.messages) == 1


def test_a_bad_address_is_refused_with_a_message(smtp):
    (player,) = make_accounts(1)
    answer = client_of(player).post("/account/notifications/", {"email": "not an address"}, follow=True)
    assert b"is not an email address" in answer.content
    assert not Preference.objects.exists() and smtp.messages == []


def test_a_guest_is_told_to_sign_up_and_cannot_opt_in():
    (guest,) = make_players(1)
    client = client_of(guest)
    assert b"are for signed-up accounts" in client.get("/account/notifications/").content
    answer = client.post("/account/notifications/", {"choices": ["push_turn"]}, follow=True)
    assert b"sign up to get them" in answer.content
    assert not Preference.objects.exists()


def test_a_visitor_is_sent_to_log_in():
    answer = Client().get("/account/notifications/")
    assert answer.status_code == 302 and "/login/" in answer["Location"]


def test_unsubscribing_works_without_login_and_twice(smtp):
    (player,) = make_accounts(1)
    opt_in(player, "push_turn", "email_turn", email="me@example.org")
    link = f"/notifications/unsubscribe/{unsubscribe_token(user_id=player.pk, channel='push', kind='turn')}/"
    first = Client().get(link)
    assert first.status_code == 200 and b"You will no longer get push notifications when it is your turn" in first.content
    second = Client().get(link)
    assert second.status_code == 200 and b"You were already not getting push notifications" in second.content
    preference = Preference.objects.get(user=player)
    assert (preference.push_turn, preference.email_turn) == (False, True)


@pytest.mark.parametrize("token", ["nonsense", "a" * 300, "eyJ0eXAiOiJKV1QifQ:1abc:xyz"])
def test_a_bad_unsubscribe_link_gets_a_clear_page(token):
    (player,) = make_accounts(1)
    opt_in(player, "push_turn")
    answer = Client().get(f"/notifications/unsubscribe/{token}/")
    assert answer.status_code == 400
    assert b"This unsubscribe link is not valid" in answer.content
    assert Preference.objects.get(user=player).push_turn


def test_a_changed_unsubscribe_link_changes_nothing():
    one, two = make_accounts(2)
    opt_in(two, "push_turn")
    token = unsubscribe_token(user_id=one.pk, channel="push", kind="turn")
    value, sep, rest = token.partition(":")
    forged = token.replace(value, value[:-1] + ("A" if value[-1] != "A" else "B"), 1)
    assert Client().get(f"/notifications/unsubscribe/{forged}/").status_code == 400
    assert Preference.objects.get(user=two).push_turn


def test_a_bad_or_stale_confirmation_link_gets_a_clear_page(smtp):
    (player,) = make_accounts(1)
    opt_in(player, email="new@example.org")
    Preference.objects.filter(user=player).update(email_confirmed=False)
    assert b"not valid or has expired" in Client().get("/notifications/confirm/nonsense/").content
    old = confirm_token(user_id=player.pk, email="old@example.org")
    answer = Client().get(f"/notifications/confirm/{old}/")
    assert answer.status_code == 400 and b"no longer uses" in answer.content
    assert not Preference.objects.get(user=player).email_confirmed


def test_the_service_worker_is_served_from_the_root_for_the_whole_site():
    answer = Client().get("/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    assert answer["Service-Worker-Allowed"] == "/"
    assert b"showNotification" in answer.content


def test_a_browser_subscribes_and_unsubscribes(settings, push_service):
    (player,) = make_accounts(1)
    client = client_of(player)
    keys = push_service.browser("laptop")
    body = {"endpoint": push_service.endpoint("laptop"), "keys": {"p256dh": keys.p256dh, "auth": b64url(keys.auth)}}
    assert client.post("/account/notifications/push/", body, content_type="application/json").json() == {"ok": True}
    assert client.post("/account/notifications/push/", body, content_type="application/json").status_code == 200
    assert PushSubscription.objects.filter(user=player).count() == 1  # one row per browser
    removed = client.post("/account/notifications/push/remove/", {"endpoint": body["endpoint"]},
                          content_type="application/json")
    assert removed.json() == {"ok": True, "removed": 1}
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize("body, code", [
    ({"endpoint": "http://127.0.0.1:6379/", "keys": {"p256dh": "x", "auth": "y"}}, "push_service"),
    ({"endpoint": "https://fcm.googleapis.com/fcm/send/a", "keys": {"p256dh": "short", "auth": "AAAA"}}, "bad_subscription"),
    ({"endpoint": ["not", "text"]}, "push_service"),
    ([1, 2], "malformed"),
    ("{", "malformed"),
])
def test_a_bad_subscription_is_refused_and_stores_nothing(body, code):
    (player,) = make_accounts(1)
    data = body if isinstance(body, str) else json.dumps(body)
    answer = client_of(player).post("/account/notifications/push/", data, content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"] == code
    assert not PushSubscription.objects.exists()


def test_a_guest_cannot_subscribe_a_browser(settings, push_service):
    (guest,) = make_players(1)
    keys = push_service.browser("g")
    body = {"endpoint": push_service.endpoint("g"), "keys": {"p256dh": keys.p256dh, "auth": b64url(keys.auth)}}
    answer = client_of(guest).post("/account/notifications/push/", body, content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"] == "not_for_guests"
    assert not PushSubscription.objects.exists() and not SendLog.objects.exists()
