"""The HTTP client to GGP players: the host allow-list at registration and at call time
(redirects and DNS rebinding included), the deadline and the cap on the answer."""

import socket
import threading
import time

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


class TricklingPlayer:
    """A player that takes the call, then answers it one byte every ``every`` seconds (the
    headers ``head`` at once first, if any): each byte comes quickly, the whole answer slowly.
    It stops when the test ends (``stop``); ``finished`` is set once the last byte went out."""

    def __init__(self, trickled: bytes, head: bytes = b"", every: float = 0.2) -> None:
        self.trickled, self.head, self.every = trickled, head, every
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.stop, self.finished = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._answer, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/"

    def _answer(self) -> None:
        connection, _ = self.listener.accept()
        with connection:
            connection.recv(65536)  # the call (what it says is tested above)
            try:
                connection.sendall(self.head)
                for byte in self.trickled:
                    if self.stop.wait(self.every):
                        return
                    connection.sendall(bytes([byte]))
            except OSError:
                return  # the caller gave up and closed
            self.finished.set()

    def __enter__(self) -> "TricklingPlayer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(5)
        self.listener.close()


TRICKLES = {  # 50 bytes or more a byte at a time: 10 s or more in all
    "headers": dict(trickled=b"HTTP/1.0 200 OK\r\nContent-Type: text/acl\r\nContent-Length: 9\r\n\r\navailable"),
    "chunked body": dict(head=b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                         trickled=b"9;" + b"x" * 48 + b"\r\navailable\r\n0\r\n\r\n"),
}


@pytest.mark.parametrize("part", TRICKLES)
def test_a_player_that_trickles_its_answer_is_cut_off_at_the_calls_deadline(part):
    """One deadline for the whole call: a player cannot stretch it past its clock by sending
    a byte now and then, each well within the time left."""
    seconds = 1.0
    with TricklingPlayer(**TRICKLES[part]) as player:
        started = time.monotonic()
        answer = client.call(player.url, "(PLAY boardhall.1 nil)", seconds=seconds)
        elapsed = time.monotonic() - started
        assert not player.finished.is_set(), "the player was still answering when the call ended"
    assert answer.failure == "timeout"
    assert elapsed < seconds + 2 and answer.seconds < seconds + 2


def test_the_allow_list_names_ports_and_a_garbled_entry_allows_nothing(settings):
    settings.GGP_PLAYER_HOSTS = ["players.example.org:9000-9100", "10.1.0.0/16:9147", "[::1]:9150", "localhost:9147",
                                 "bad.example.org:0", "worse.example.org:x"]
    assert client.check_url("http://players.example.org:9100/").port == 9100
    assert client.check_url("http://10.1.2.3:9147/").host == "10.1.2.3"
    assert client.check_url("http://[::1]:9150/").port == 9150
    assert client.check_url("http://127.0.0.1:9147/").port == 9147
    for url in ["http://players.example.org:9101/", "http://players.example.org/", "http://10.1.2.3:9148/",
                "http://[::1]:9148/", "http://localhost:9150/", "http://bad.example.org:1/", "http://worse.example.org/"]:
        with pytest.raises(client.Refused):
            client.check_url(url)


def test_a_call_checks_the_port_again(settings):
    """A player registered while its port was allowed is not called once the operator
    narrows the list."""
    with PlayerServer(lambda body: "available") as player:
        port = player.server.server_address[1]
        settings.GGP_PLAYER_HOSTS = [f"localhost:{port + 1}"]
        answer = client.call(player.url, "(INFO)", seconds=10)
    assert answer.failure.startswith("refused:") and player.requests == []
