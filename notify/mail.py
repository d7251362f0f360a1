"""Email through Django's mail (SMTP from the environment: ``EMAIL_HOST`` and the rest; with
no ``EMAIL_HOST`` the channel is off). Every message names its one-click unsubscribe link in
the text and in ``List-Unsubscribe`` (RFC 8058, for the mail reader's own button)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMessage

from notify.texts import Text


def email_enabled() -> bool:
    return bool(settings.EMAIL_HOST)


def email_send(*, to: str, text: Text, kind_said: str) -> None:
    body = (f"{text.body}\n\n{text.url}\n\n-- \n"
            f"You get this email because you asked to be told when {kind_said}.\n"
            f"Stop these emails (one click): {text.unsubscribe_url}\n"
            f"All your notification settings: {text.settings_url}\n")
    EmailMessage(subject=f"Boardhall: {text.title}", body=body, to=[to],
                 headers={"List-Unsubscribe": f"<{text.unsubscribe_url}>",
                          "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}).send()


def confirmation_send(*, to: str, confirm_url: str, settings_url: str) -> None:
    body = (f"Someone (we hope you) asked Boardhall to send notifications to this address.\n\n"
            f"To confirm it, open this link within three days:\n{confirm_url}\n\n"
            f"If it was not you, ignore this email: nothing will be sent unless the link is opened.\n"
            f"Notification settings: {settings_url}\n")
    EmailMessage(subject="Boardhall: confirm your email address", body=body, to=[to]).send()
