"""Account writes: guests, sign-up (a guest keeps its matches), display names."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth import SESSION_KEY
from django.contrib.auth.password_validation import validate_password
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import services as match_services
from games.match import text
from games.services import ServiceError, broadcast
from lobby import sessions
from lobby.models import User

NAME_MAX = text.NAME_MAX


def _clean_name(display_name: str, *, owner: User | None = None) -> tuple[str, str]:
    """The display name by the text policy and its key, not taken by another player (ServiceError)."""
    try:
        name = text.display_name_clean(display_name)
    except text.TextRefused as err:
        raise ServiceError("invalid_name", str(err), {"reason": err.code}) from None
    key = text.name_key(name)
    others = User.objects.filter(name_key=key)
    if owner is not None and owner.pk is not None:
        others = others.exclude(pk=owner.pk)
    if others.exists():
        raise _name_taken(name)
    return name, key


def _name_taken(name: str) -> ServiceError:
    return ServiceError("name_taken", _("Another player is called “%(name)s” (or nearly so); choose another name.") % {"name": name})


# Tries at a generated guest name before giving up: with a million names, a few are taken at most.
GENERATED_NAME_TRIES = 20


def guest_create(*, display_name: str | None = None) -> User:
    """A guest account with an unusable password; the caller logs it in to the session.

    Without ``display_name`` (playing the computer at once) the guest gets a generated name,
    "Guest 123456", which passes the same policy and that no other player has.
    """
    if display_name is not None:
        return _guest_save(display_name)
    for _try in range(GENERATED_NAME_TRIES):
        try:
            return _guest_save(f"Guest {secrets.randbelow(1_000_000):06d}")
        except ServiceError as err:
            if err.code != "name_taken":
                raise
    raise ServiceError("name_taken", _("No free guest name was found: pick a name of your own to play."))


def _guest_save(display_name: str) -> User:
    name, key = _clean_name(display_name)
    user = User(username=f"guest-{secrets.token_hex(6)}", display_name=name, name_key=key, is_guest=True)
    user.set_unusable_password()
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:  # another player took the name a moment ago
        raise _name_taken(name) from None
    return user


# The site's own accounts: the computer's (games.services.computer_user), guests' (guest_create) and
# registered GGP players' (games.ggp.players, "ggp-...").
RESERVED_USERNAMES = ("computer", "guest-", "ggp-")


def _username_taken(username: str, user: User) -> bool:
    return User.objects.filter(username__iexact=username).exclude(pk=user.pk).exists()


def account_signup(*, username: str, password: str, display_name: str = "", guest: User | None = None,
                   refusal: Callable[[], str | None] | None = None) -> User:
    """Create a full account; when ``guest`` is given, that guest becomes the account and keeps its matches.
    ``refusal`` is asked once every check has passed, just before the account is saved: a message
    refuses the sign-up (ServiceError ``too_many_signups``), None lets it through. So a limit it
    counts counts only sign-ups that would be made, not a taken name tried again."""
    username = (username or "").strip()
    if not username:
        raise ServiceError("invalid_username", _("Choose a user name."))
    try:
        User.username_validator(username)
    except ValidationError as err:
        raise ServiceError("invalid_username", " ".join(err.messages)) from None
    if username.casefold().startswith(RESERVED_USERNAMES):
        starts = ", ".join(f"'{prefix}'" for prefix in RESERVED_USERNAMES)
        raise ServiceError("reserved_username", _("User names starting with %(starts)s belong to the site's own "
                                                  "accounts (the computer, guests, GGP players); choose another.")
                           % {"starts": starts})
    user = guest if guest is not None and guest.is_guest else User()
    if _username_taken(username, user):  # said before the display name, which defaults to it
        raise ServiceError("username_taken", _("The user name “%(name)s” is taken; choose another.") % {"name": username})
    user.username = username
    user.display_name, user.name_key = _clean_name(display_name or user.display_name or username, owner=user)
    try:
        validate_password(password, user)
    except ValidationError as err:
        raise ServiceError("weak_password", " ".join(err.messages)) from None
    if refusal is not None and (message := refusal()):
        raise ServiceError("too_many_signups", message)
    user.set_password(password)
    user.is_guest = False
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:  # another sign-up took the user name (or the display name) a moment ago
        if _username_taken(username, user):
            raise ServiceError("username_taken", _("The user name “%(name)s” is taken; choose another.") % {"name": username}) from None
        raise _name_taken(user.display_name) from None
    return user


def guest_leave(*, user: User) -> dict[str, int]:
    """A guest logs out, which ends it for good (a guest has no password to come back with):
    its unfinished matches are settled (``games.services.player_depart``) and its name is free
    for anyone again; finished matches keep showing it. Returns what ``player_depart`` did."""
    settled = match_services.player_depart(user=user)
    User.objects.filter(pk=user.pk, is_guest=True).update(name_key="", is_active=False)
    return settled


# A guest made this recently may not have its session saved yet (the response saves it).
GUEST_GRACE = timedelta(hours=1)


def guests_expire(*, now=None) -> int:
    """End the guests nobody can come back as, as if each had logged out (``guest_leave``): a
    guest has no password, so once no unexpired session signs it in, its name and unfinished
    matches are stranded for good. Returns how many. Reads every unexpired session, so it is
    run as Django's ``clearsessions`` is: at start and then daily (``manage.py guests_expire``)."""
    now = now or timezone.now()
    signed_in = set()
    for session in Session.objects.filter(expire_date__gt=now).only("session_data").iterator():
        user_id = session.get_decoded().get(SESSION_KEY)
        if user_id is not None:
            signed_in.add(str(user_id))
    stranded = [guest for guest in User.objects.filter(is_guest=True, is_active=True,
                                                       date_joined__lt=now - GUEST_GRACE).iterator()
                if str(guest.pk) not in signed_in]
    for guest in stranded:
        guest_leave(user=guest)
    return len(stranded)


def user_language_set(*, user: User, language: str) -> None:
    """Keep ``language`` (a code of ``settings.LANGUAGES``, checked by the caller) as the
    account's choice (``lobby.language``)."""
    if user.language != language:
        user.language = language
        User.objects.filter(pk=user.pk).update(language=language)


def pages_signed_out(*, request, user, **_) -> None:
    """A browser logged out (Django's ``user_logged_out``): the server closes every socket its
    session opened, match and lobby sockets too (``live.sockets.Socket.session_ended``); its
    pages still open in other tabs reload signed out instead of acting as the player."""
    key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and key:
        broadcast.session_ended_on_commit(sessions.digest(key))
