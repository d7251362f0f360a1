"""Email through Django's mail (SMTP from the environment: ``EMAIL_HOST`` and the rest; with
no ``EMAIL_HOST`` the channel is off). Every message names its one-click unsubscribe link in
the text and in ``List-Unsubscribe`` (RFC 8058, for the mail reader's own button)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMessage
from django.utils.translation import gettext as _

from notify.texts import Text


def email_enabled() -> bool:
    return bool(settings.EMAIL_HOST)


def email_send(*, to: str, text: Text, kind_said: str) -> None:
    body = (f"{text.body}\n\n{text.url}\n\n-- \n"
            + _("You get this email because you asked to be told when %(event)s.") % {"event": kind_said} + "\n"
            + _("Stop these emails (one click): %(url)s") % {"url": text.unsubscribe_url} + "\n"
            + _("All your notification settings: %(url)s") % {"url": text.settings_url} + "\n")
    EmailMessage(subject=f"Boardhall: {text.title}", body=body, to=[to],
                 headers={"List-Unsubscribe": f"<{text.unsubscribe_url}>",
                          "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}).send()


def confirmation_send(*, to: str, confirm_url: str, settings_url: str) -> None:
    body = (_("Someone (we hope you) asked Boardhall to send notifications to this address.") + "\n\n"
            + _("To confirm it, open this link within three days:") + f"\n{confirm_url}\n\n"
            + _("If it was not you, ignore this email: nothing will be sent unless the link is opened.") + "\n"
            + _("Notification settings: %(url)s") % {"url": settings_url} + "\n")
    EmailMessage(subject=_("Boardhall: confirm your email address"), body=body, to=[to]).send()
