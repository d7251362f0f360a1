"""A mail server and a push service for the notification tests, both on this machine.

``SmtpServer``: aiosmtpd in a thread; ``messages`` holds each email received, parsed.
``PushService``: an HTTP server in a thread that acts as a browser's push service and the
browser together: it checks the VAPID JWT of each request (RFC 8292: ES256 over the header's
``k`` key, ``aud`` the endpoint's origin, ``exp`` in the future) and decrypts the body with
the subscription's private key and auth secret (RFC 8291, aes128gcm), as the browser would.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from aiosmtpd.controller import Controller
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.support.live import free_port


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


class _Collect:
    def __init__(self, messages: list[EmailMessage]) -> None:
        self.messages = messages

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        message = message_from_bytes(envelope.content, policy=policy.default)
        message["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"


class SmtpServer:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.port = free_port()
        self._controller = Controller(_Collect(self.messages), hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> SmtpServer:
        self._controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self._controller.stop()


@dataclass
class Browser:
    """One subscription's keys, as a browser keeps them."""

    private_key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        return b64url(self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))

    def decrypt(self, body: bytes) -> bytes:
        return http_ece.decrypt(body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm")


@dataclass
class Delivered:
    path: str
    message: dict
    vapid_key: str
    claims: dict
    ttl: str


def vapid_claims(authorization: str, origin: str) -> tuple[str, dict]:
    """Check ``Authorization: vapid t=<JWT>, k=<key>`` and return the key and the claims."""
    scheme, _, rest = authorization.partition(" ")
    assert scheme.lower() == "vapid", authorization
    parts = dict(part.strip().split("=", 1) for part in rest.split(","))
    token, key = parts["t"], parts["k"]
    header, claims, signature = token.split(".")
    assert json.loads(b64url_decode(header)) == {"typ": "JWT", "alg": "ES256"}
    raw = b64url_decode(signature)
    assert len(raw) == 64, "an ES256 signature is r and s, 32 bytes each"
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(key))
    try:
        public.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                      f"{header}.{claims}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID JWT's signature does not match its key") from None
    claims = json.loads(b64url_decode(claims))
    assert claims["aud"] == origin, claims
    assert claims["exp"] > time.time(), claims
    assert claims["sub"].startswith(("mailto:", "https:")), claims
    return key, claims


class PushService:
    """Endpoints ``/push/<name>`` for the browsers made by ``browser(name)``; ``/gone/<name>``
    answers 410 (the subscription is no more)."""

    def __init__(self) -> None:
        self.browsers: dict[str, Browser] = {}
        self.delivered: list[Delivered] = []
        self.refused: list[str] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                kind, _, name = self.path.strip("/").partition("/")
                if kind == "gone":
                    self.send_response(410)
                    self.end_headers()
                    return
                try:
                    assert self.headers["Content-Encoding"] == "aes128gcm", self.headers["Content-Encoding"]
                    key, claims = vapid_claims(self.headers["Authorization"], service.origin)
                    message = json.loads(service.browsers[name].decrypt(body))
                except Exception as err:  # the test reads what was refused and why
                    service.refused.append(f"{self.path}: {err!r}")
                    self.send_response(400)
                    self.end_headers()
                    return
                service.delivered.append(Delivered(path=self.path, message=message, vapid_key=key, claims=claims,
                                                   ttl=self.headers.get("TTL", "")))
                self.send_response(201)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"

    def browser(self, name: str) -> Browser:
        return self.browsers.setdefault(name, Browser())

    def endpoint(self, name: str, kind: str = "push") -> str:
        return f"{self.origin}/{kind}/{name}"

    def __enter__(self) -> PushService:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def opt_in(user, *choices: str, email: str = "", push: PushService | None = None, browser: str = ""):
    """``user`` chose ``choices`` (e.g. "email_turn"), with ``email`` confirmed, and, given
    ``push``, subscribed a browser called ``browser`` there."""
    from notify.models import Preference, PushSubscription

    preference, _ = Preference.objects.update_or_create(
        user=user, defaults={"email": email, "email_confirmed": bool(email), **{c: True for c in choices}})
    if push is not None:
        keys = push.browser(browser or f"u{user.pk}")
        PushSubscription.objects.create(user=user, endpoint=push.endpoint(browser or f"u{user.pk}"),
                                        p256dh=keys.p256dh, auth=b64url(keys.auth))
    return preference
