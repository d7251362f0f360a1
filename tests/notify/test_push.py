"""Web push (notify/push.py) to a push service of the test's own that decrypts each message as
the browser would (RFC 8291) and checks the server's VAPID signature (RFC 8292)."""

import pytest

from notify.delivery import deliver
from notify.events import Notice
from notify.models import PushSubscription, VapidKey
from notify.push import endpoint_allowed, push_send, vapid_key
from tests.support.notify import b64url, opt_in
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db


def subscribe(user, push_service, name: str, kind: str = "push") -> PushSubscription:
    keys = push_service.browser(name)
    return PushSubscription.objects.create(user=user, endpoint=push_service.endpoint(name, kind),
                                           p256dh=keys.p256dh, auth=b64url(keys.auth))


def test_a_message_arrives_decrypted_and_signed_with_the_kept_vapid_key(push_service):
    (player,) = make_accounts(1)
    subscription = subscribe(player, push_service, "laptop")
    assert push_send(subscription, {"title": "Your turn", "url": "https://boardhall.test/matches/1/"})
    assert push_send(subscription, {"title": "Again"})
    assert push_service.refused == []
    first, second = push_service.delivered
    assert first.message == {"title": "Your turn", "url": "https://boardhall.test/matches/1/"}
    assert second.message == {"title": "Again"}
    assert first.vapid_key == second.vapid_key == VapidKey.objects.get().public_key
    assert first.claims["aud"] == push_service.origin
    assert first.ttl == "86400"


def test_the_vapid_key_pair_is_made_once_and_kept():
    made = vapid_key()
    assert vapid_key().public_key == made.public_key
    assert VapidKey.objects.count() == 1
    assert made.private_pem.startswith("-----BEGIN PRIVATE KEY-----")


def test_a_subscription_the_push_service_forgot_is_deleted(push_service):
    (player,) = make_accounts(1)
    gone = subscribe(player, push_service, "old", kind="gone")
    assert push_send(gone, {"title": "x"}) is False
    assert not PushSubscription.objects.filter(pk=gone.pk).exists()


def test_every_browser_of_the_player_hears_and_one_gone_does_not_stop_the_others(push_service, settings):
    one, two = make_accounts(2)
    opt_in(one, "push_challenge")
    subscribe(one, push_service, "old", kind="gone")
    subscribe(one, push_service, "laptop")
    subscribe(one, push_service, "phone")
    notice = Notice(kind="challenge", user_id=one.pk, key=two.pk, path="/", game="Misère Quarto", by="member 2")
    assert deliver(notice) == ["push"]
    assert sorted(d.path for d in push_service.delivered) == ["/push/laptop", "/push/phone"]
    message = push_service.delivered[0].message
    assert message["title"] == "member 2 challenges you"
    assert message["url"] == "https://boardhall.test/"
    assert message["unsubscribe"].startswith("https://boardhall.test/notifications/unsubscribe/")
    assert PushSubscription.objects.filter(user=one).count() == 2


@pytest.mark.parametrize("endpoint, allowed", [
    ("https://fcm.googleapis.com/fcm/send/abc", True),
    ("https://updates.push.services.mozilla.com/wpush/v2/abc", True),
    ("http://fcm.googleapis.com/fcm/send/abc", False),  # not HTTPS
    ("https://evil.example/fcm.googleapis.com", False),
    ("https://fcm.googleapis.com.evil.example/x", False),
    ("https://user:pw@fcm.googleapis.com/x", False),
    ("http://127.0.0.1:6379/", False),  # not listed: never a host of the server's network
    ("https://[::1", False),
    ("", False),
])
def test_only_the_listed_push_services_are_posted_to(endpoint, allowed):
    assert endpoint_allowed(endpoint) is allowed


def test_a_listed_loopback_host_may_be_plain_http(settings):
    settings.PUSH_SERVICE_HOSTS = ["127.0.0.1"]
    assert endpoint_allowed("http://127.0.0.1:8123/push/a")
    assert not endpoint_allowed("http://localhost:8123/push/a")
