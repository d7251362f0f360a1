"""The HTTP client to GGP players: the host allow-list at registration and at call time
(redirects and DNS rebinding included), the deadline and the cap on the answer."""

import socket
import threading

import pytest

from games.ggp import client
from tests.support.ggphttp import PlayerServer


@pytest.fixture(autouse=True)
def local_only(settings):
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_ANSWER_BYTES = 4096


@pytest.mark.parametrize("url", [
    "http://example.org:9147/", "http://10.0.0.5:9147/", "http://169.254.169.254/latest/",
    "ftp://localhost/", "file:///etc/passwd", "gopher://127.0.0.1:70/", "http://user:pw@localhost:9147/",
    "http://localhost:9147/?q=1", "localhost:9147", "http://localhost:99999/", "", "http:///x",
    "http://[::ffff:10.0.0.1]:80/", "http://0x7f000001.example/",
])
def test_a_url_to_another_host_or_scheme_is_refused_at_registration(url):
    with pytest.raises(client.Refused):
        client.check_url(url)


@pytest.mark.parametrize("url", ["http://localhost:9147/", "http://127.0.0.1:9147/player", "http://[::1]:9147/",
                                 "https://localhost/"])
def test_the_local_machine_is_allowed_by_default(url):
    assert client.check_url(url).host in {"localhost", "127.0.0.1", "::1"}


def test_the_operator_allows_hosts_and_networks_by_name(settings):
    settings.GGP_PLAYER_HOSTS = ["players.example.org", "10.1.0.0/16"]
    assert client.check_url("http://players.example.org:9000/").port == 9000
    assert client.check_url("http://10.1.2.3:9000/").host == "10.1.2.3"
    for url in ["http://10.2.0.1/", "http://localhost:9000/", "http://127.0.0.1:9000/", "http://example.org/"]:
        with pytest.raises(client.Refused):
            client.check_url(url)


def test_a_call_posts_the_message_with_the_managers_headers_and_reads_the_answer():
    with PlayerServer(lambda body: "((name tester) (status available))") as player:
        answer = client.call(player.url, "(INFO)", seconds=10)
    assert answer.ok and answer.text == "((name tester) (status available))"
    [request] = player.requests
    assert request["method"] == "POST" and request["body"] == "(INFO)"
    assert request["headers"]["Content-Type"] == "text/acl"
    assert request["headers"]["Sender"] == "GAMESERVER"


def test_a_redirect_is_not_followed_even_to_an_allowed_host():
    with PlayerServer(lambda body: "available") as elsewhere:
        with PlayerServer(lambda body: (302, {"Location": elsewhere.url}, "")) as player:
            answer = client.call(player.url, "(INFO)", seconds=10)
    assert answer.failure.startswith("bad_status: HTTP 302")
    assert elsewhere.requests == []


def test_a_name_that_resolves_to_a_forbidden_address_at_call_time_is_refused(settings, monkeypatch):
    """DNS rebinding: the name was allowed at registration; at call time it resolves to an
    address of the server's network, and nothing is sent there."""
    settings.GGP_PLAYER_HOSTS = ["players.example.org"]
    with PlayerServer(lambda body: "available") as inside:
        port = inside.server.server_address[1]
        url = f"http://players.example.org:{port}/"
        assert client.check_url(url)  # allowed by name at registration
        monkeypatch.setattr(client, "getaddrinfo", lambda *a, **k: [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))])
        answer = client.call(url, "(INFO)", seconds=10)
    assert answer.failure.startswith("refused:") and "127.0.0.1" in answer.failure
    assert inside.requests == []


def test_a_url_the_operator_no_longer_allows_is_refused_at_call_time(settings):
    with PlayerServer(lambda body: "available") as player:
        settings.GGP_PLAYER_HOSTS = ["players.example.org"]
        answer = client.call(player.url, "(INFO)", seconds=10)
    assert answer.failure.startswith("refused:")
    assert player.requests == []


def test_a_late_answer_is_a_timeout():
    release = threading.Event()

    def slow(body):
        release.wait(10)
        return "available"

    with PlayerServer(slow) as player:
        answer = client.call(player.url, "(INFO)", seconds=0.3)
        release.set()
    assert answer.failure == "timeout" and answer.seconds < 5


def test_an_answer_over_the_cap_is_refused(settings):
    settings.GGP_ANSWER_BYTES = 100
    with PlayerServer(lambda body: "x" * 101) as player:
        assert client.call(player.url, "(INFO)", seconds=10).failure.startswith("too_large")
    with PlayerServer(lambda body: "x" * 100) as player:
        assert client.call(player.url, "(INFO)", seconds=10).text == "x" * 100


def test_nobody_listening_is_unreachable():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    answer = client.call(f"http://127.0.0.1:{port}/", "(INFO)", seconds=5)
    assert answer.failure.startswith("unreachable")
