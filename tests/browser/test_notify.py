"""Notifications in Chromium: the settings page registers the site's service worker for the
whole site, and a push message delivered to it (through the DevTools protocol, as a push
service would) shows the notification the server's message describes; the choices are saved
from the page."""

import json

import pytest
from playwright.sync_api import expect

from notify.delivery import push_message
from notify.events import Notice
from tests.browser.helpers import outside_the_event_loop
from tests.support.players import make_accounts
from tests.support.waits import until_here

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# DevTools now and then drops the first push to a worker just registered (seen once in about
# twenty runs on a loaded machine, the worker activated and running): the test pushes again.
PUSHES = 3
NOTIFICATIONS = """async () => {
    const notes = await (await navigator.serviceWorker.ready).getNotifications();
    return notes.map((n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data, actions: n.actions.map((a) => a.action)}));
}"""


def registration_id(cdp, page) -> str:
    """The service worker's registration, as DevTools reports it (its events arrive while
    Playwright waits on the page)."""
    found = []
    cdp.on("ServiceWorker.workerRegistrationUpdated",
           lambda event: found.extend(r for r in event["registrations"] if not r["isDeleted"]))
    cdp.send("ServiceWorker.enable")
    # A push reaches only an activated worker ("ready" already holds while it is activating).
    until_here(lambda: page.evaluate("async () => (await navigator.serviceWorker.ready).active.state") == "activated",
               "the service worker is activated")
    until_here(lambda: page.evaluate("1") and found, "DevTools reports the service worker's registration")
    return found[0]["registrationId"]


def test_a_push_message_shows_the_notification(page_of, live_server):
    (player,) = outside_the_event_loop(lambda: make_accounts(1))
    page = page_of(player)
    page.context.grant_permissions(["notifications"], origin=live_server.url)
    page.goto("/account/notifications/")
    expect(page.get_by_role("heading", name="Notifications", exact=True)).to_be_visible()
    scope = page.evaluate("async () => (await navigator.serviceWorker.ready).scope")
    assert scope == f"{live_server.url}/"
    expect(page.get_by_role("button", name="Turn on in this browser")).to_be_visible()

    cdp = page.context.new_cdp_session(page)
    notice = Notice(kind="turn", user_id=player.pk, key=5, watched_match=5, path="/matches/5/",
                    game="Nine-Board Tic-Tac-Toe", by="Ada")
    message = outside_the_event_loop(lambda: push_message(notice))
    registration = registration_id(cdp, page)
    shown = []
    for attempt in range(1, PUSHES + 1):
        cdp.send("ServiceWorker.deliverPushMessage", {"origin": live_server.url, "registrationId": registration,
                                                      "data": json.dumps(message)})
        try:
            shown = until_here(lambda: page.evaluate(NOTIFICATIONS), "the notification is shown", seconds=10)
            break
        except AssertionError:
            if attempt == PUSHES:
                raise
    assert shown == [{"title": "Your turn: Nine-Board Tic-Tac-Toe",
                      "body": "Ada moved: it is your turn in your Nine-Board Tic-Tac-Toe match.",
                      "tag": "turn-5", "data": {"url": message["url"], "unsubscribe": message["unsubscribe"]},
                      "actions": ["unsubscribe"]}]


def test_the_choices_are_saved_from_the_page(page_of):
    (player,) = outside_the_event_loop(lambda: make_accounts(1))
    page = page_of(player)
    page.goto("/account/notifications/")
    page.get_by_label("A challenge by push notification").check()
    page.get_by_label("A rematch offer by email").check()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status").filter(has_text="saved")).to_be_visible()
    expect(page.get_by_label("A challenge by push notification")).to_be_checked()
    expect(page.get_by_label("A rematch offer by email")).to_be_checked()
    expect(page.get_by_label("Your turn in a correspondence match by email")).not_to_be_checked()
