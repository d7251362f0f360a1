"""Through nginx (deploy/nginx.py) behind a trusted TLS terminator, Django sees the scheme the
client used: the proxy's X-Forwarded-Proto is passed on, when it says http or https; anyone
else's is not. Seen as the site behind a TLS proxy sees it (BEHIND_TLS_PROXY=1): a secure
request is served with HSTS, a plain one redirected to https."""

import pytest

from tests.support.httpclient import Visitor
from tests.support.live import live_server

pytestmark = pytest.mark.django_db(transaction=True)

TRUSTED, UNTRUSTED = "127.0.0.2", "127.0.0.1"


def seen_as_secure(front, *, source: str, forwarded_proto: str | None) -> bool:
    """Whether Django sees a request from ``source`` as secure; it names a client as a proxy does
    (whose address realip takes: the peer, not that client, is what nginx trusts)."""
    headers = {"X-Forwarded-For": "198.51.100.7"}
    if forwarded_proto is not None:
        headers["X-Forwarded-Proto"] = forwarded_proto
    page = Visitor(front, source=source, headers=headers).get("/rules/")
    if page.status == 301:
        assert page.headers["Location"].startswith("https://")
        return False
    assert page.status == 200
    return "Strict-Transport-Security" in page.headers


def test_only_a_trusted_proxy_names_the_scheme_and_only_as_http_or_https():
    from tests.support.nginx import nginx_in_front

    with live_server(env={"BEHIND_TLS_PROXY": "1"}, proxy_headers=True) as server, \
            nginx_in_front([server], trusted_proxies=[TRUSTED]) as front:
        assert seen_as_secure(front, source=TRUSTED, forwarded_proto="https")
        assert not seen_as_secure(front, source=TRUSTED, forwarded_proto="http")
        assert not seen_as_secure(front, source=TRUSTED, forwarded_proto=None)  # nginx's own: http
        # Django would take the first of a list as the scheme; nginx passes neither it nor a stranger.
        for bogus in ("https, http", "https,https", "wss"):
            assert not seen_as_secure(front, source=TRUSTED, forwarded_proto=bogus), bogus
        # A client that reaches nginx itself names nothing.
        assert not seen_as_secure(front, source=UNTRUSTED, forwarded_proto="https")


def test_at_the_edge_nobody_names_the_scheme():
    from tests.support.nginx import nginx_in_front

    with live_server(env={"BEHIND_TLS_PROXY": "1"}, proxy_headers=True) as server, nginx_in_front([server]) as front:
        for source in (TRUSTED, UNTRUSTED):
            assert not seen_as_secure(front, source=source, forwarded_proto="https")
