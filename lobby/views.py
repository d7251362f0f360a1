"""Lobby and account pages: parse the form, call one service, redirect or render."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from games import selectors, services
from games.match import clocks, guide, invites
from games.match.labels import ROLE_LABELS
from games.rules import GAMES
from games.runtime import throttle
from games.selectors.invites import invites_ended
from games.services import ServiceError
from games.views import refuse
from lobby import forms, language
from lobby import services as accounts


def home(request):
    services.waiting_matches_expire()
    return render(request, "lobby/home.html", {
        "games": guide.shown_games(),
        "guide_games": guide.guide_games(),
        "lists": selectors.lobby_lists(),
        "mine": [{**m, "game_name": guide.game_name(m["game"])} for m in selectors.matches_of_player(user=request.user)],
        "game_names": {g.slug: guide.game_name(g.slug) for g in GAMES},
        "role_labels": {role: guide.seat_words(role) for role in ROLE_LABELS},
        "guest_form": forms.GuestForm(),
        "create_form": forms.MatchCreateForm(initial=forms.MatchCreateForm.choices_in(request.GET)),
        "computer_form": forms.ComputerPlayForm(initial=forms.ComputerPlayForm.choices_in(request.GET),
                                                auto_id="computer-%s"),
        "roles_by_game": forms.roles_by_game(),
        "friend_form": forms.FriendPlayForm(auto_id="friend-%s"),
        "invite_grace": invites.grace_words(settings.INVITE_GRACE_SECONDS),
        "invites_ended": [{**ended, "game_name": guide.game_name(ended["game"])}
                          for ended in invites_ended(user=request.user)],
        "clock_choices": clocks.choices(),
    })


@require_POST
def guest(request):
    if request.user.is_authenticated:  # a second name would strand the first (its matches, its name)
        messages.info(request, _("You are already playing as %(name)s.") % {"name": request.user.display_name})
        return redirect(_next_url(request))
    form = forms.GuestForm(request.POST)
    if form.is_valid():
        if refusal := _guest_refusal(request):
            messages.error(request, refusal)
            return redirect(_next_url(request))
        try:
            user = accounts.guest_create(display_name=form.cleaned_data["display_name"])
        except ServiceError as err:
            messages.error(request, err.message)
        else:
            login(request, user, backend="lobby.auth.Backend")
    else:
        messages.error(request, _("Choose a display name of at most %(count)d characters.") % {"count": accounts.NAME_MAX})
    return redirect(_next_url(request))


def signup(request):
    form = forms.SignupForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        guest_user = request.user if request.user.is_authenticated and request.user.is_guest else None
        try:
            user = accounts.account_signup(guest=guest_user, refusal=lambda: _signup_refusal(request),
                                           **form.cleaned_data)
        except ServiceError as err:
            form.add_error(None, err.message)
        else:
            login(request, user, backend="lobby.auth.Backend")
            messages.success(request, _("Welcome, %(name)s: your account is ready.") % {"name": user.display_name})
            return redirect("lobby:home")
    return render(request, "registration/signup.html", {"form": form})


@require_POST
def match_create(request):
    form = forms.MatchCreateForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return _create_form_again(request)
    against_computer = form.cleaned_data["opponents"] == "computer"
    if not _may_create(request, against_computer=against_computer):
        _too_fast(request)
        return _create_form_again(request)
    try:
        match = services.match_create(user=request.user, settings=form.match_settings(),
                                      is_private=form.cleaned_data["private"],
                                      role=form.cleaned_data["role"] or None,
                                      against_computer=against_computer,
                                      computer_level=form.cleaned_data["computer_level"])
    except ServiceError as err:
        refuse(request, err)
        return _create_form_again(request)
    return redirect("games:match", match_id=match.pk)


def _create_form_again(request):
    """Back to the lobby's create form, showing what the refused form had chosen."""
    chosen = {name: request.POST[name] for name in forms.MatchCreateForm.base_fields if name in request.POST}
    return redirect(f"{reverse('lobby:home')}?{urlencode(chosen)}#create-form")


@require_POST
def computer_play(request):
    """Play the computer at once from the home page: a visitor becomes a guest with a generated
    name (a player stays who they are), and an untimed casual match against the computer starts."""
    form = forms.ComputerPlayForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect("lobby:home")
    # Before a guest is made: one address cannot make guests by the hundred.
    if not _address_may_create(request, against_computer=True):
        _too_fast(request)
        return redirect("lobby:home")
    if not request.user.is_authenticated:
        if refusal := _guest_refusal(request):
            messages.error(request, refusal)
            return redirect("lobby:home")
        try:
            user = accounts.guest_create()
        except ServiceError as err:
            messages.error(request, err.message)
            return redirect("lobby:home")
        login(request, user, backend="lobby.auth.Backend")
    if not _player_may_create(request.user, against_computer=True):
        _too_fast(request)
        return redirect("lobby:home")
    try:
        match = services.match_create(user=request.user, settings=form.match_settings(), against_computer=True,
                                      computer_level=form.cleaned_data["computer_level"])
    except ServiceError as err:
        refuse(request, err)
        return redirect("lobby:home")
    return redirect("games:match", match_id=match.pk)


@require_POST
def friend_play(request):
    """Play with a friend: a private match with the settings chosen, whose page gives the invite
    link and its QR code. A visitor becomes a guest first (the name given, else a generated one)."""
    form = forms.FriendPlayForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect(f"{reverse('lobby:home')}#play-friend")
    if not _address_may_create(request, against_computer=False):
        _too_fast(request)
        return redirect("lobby:home")
    if not request.user.is_authenticated:
        if refusal := _guest_refusal(request):
            messages.error(request, refusal)
            return redirect("lobby:home")
        try:
            user = accounts.guest_create(display_name=form.cleaned_data["display_name"] or None)
        except ServiceError as err:
            messages.error(request, err.message)
            return redirect(f"{reverse('lobby:home')}#play-friend")
        login(request, user, backend="lobby.auth.Backend")
    if not _player_may_create(request.user, against_computer=False):
        _too_fast(request)
        return redirect("lobby:home")
    try:
        match = services.match_create(user=request.user, settings=form.match_settings(), is_private=True,
                                      role=form.cleaned_data["role"])
    except ServiceError as err:
        refuse(request, err)
        return redirect("lobby:home")
    return redirect("games:match", match_id=match.pk)


def _may_create(request, *, against_computer: bool) -> bool:
    """Creation is limited per player and per client address: one guest cannot fill the lobby,
    nor one address with many guests. Both are counted. Games against the computer never wait
    in the lobby: they have their own, roomier count (``_limits``); the service bounds how many
    a player has unfinished."""
    address = _address_may_create(request, against_computer=against_computer)
    return _player_may_create(request.user, against_computer=against_computer) and address


def _limits(against_computer: bool) -> tuple[str, int, int]:
    """The count a creation goes to, and its limits a minute for a player and an address."""
    if against_computer:
        return "computer", settings.COMPUTER_CREATE_PER_MINUTE, settings.COMPUTER_CREATE_PER_ADDRESS_PER_MINUTE
    return "create", settings.CREATE_PER_MINUTE, settings.CREATE_PER_ADDRESS_PER_MINUTE


def _address_may_create(request, *, against_computer: bool) -> bool:
    action, _per_player, per_address = _limits(against_computer)
    return throttle.action_allowed(action, _address(request), per_address)


def _address(request) -> str:
    return f"a{request.META.get('REMOTE_ADDR', '')}"


def _guest_refusal(request) -> str | None:
    """Why the client's address may not make another guest now, or None (counting this one).
    Guests are limited per address, a minute and a day: each is a new name and a new day's
    share of the per-guest limits, which a fresh guest a minute would otherwise evade."""
    return _address_refusal(
        request, "guest", settings.GUEST_CREATE_PER_ADDRESS_PER_MINUTE, settings.GUEST_CREATE_PER_ADDRESS_PER_DAY,
        too_fast=_("Too many guests were made from your address just now: wait a minute, then try again."),
        today=_("Your address has made as many guests as it may today: sign up or log in to play on, "
                "or come back tomorrow."))


def _signup_refusal(request) -> str | None:
    """Why the client's address may not make another account now, or None (counting this one).
    The guests' daily refusal sends people to sign up: without a limit of its own, fresh
    accounts by the hundred would farm the ladder (and evade the guests' limit)."""
    return _address_refusal(
        request, "signup", settings.SIGNUP_PER_ADDRESS_PER_MINUTE, settings.SIGNUP_PER_ADDRESS_PER_DAY,
        too_fast=_("Too many accounts were made from your address just now: wait a minute, then try again."),
        today=_("Your address has made as many new accounts as it may today: log in to one you have, "
                "or come back tomorrow."))


def _address_refusal(request, action: str, per_minute: int, per_day: int, *, too_fast: str, today: str) -> str | None:
    """``too_fast`` or ``today`` when the client's address has taken ``action`` its ``per_minute``
    times this minute or its ``per_day`` times this (UTC) day, else None; this one is counted."""
    address = _address(request)
    if not throttle.action_allowed(action, address, per_minute):
        return too_fast
    if not throttle.action_allowed(f"{action}-day", address, per_day, seconds=throttle.DAY_SECONDS):
        return today
    return None


def _player_may_create(user, *, against_computer: bool) -> bool:
    action, per_player, _per_address = _limits(against_computer)
    return not user.is_authenticated or throttle.action_allowed(action, f"u{user.pk}", per_player)


def _too_fast(request) -> None:
    messages.error(request, _("You are creating matches too fast: wait a minute, then try again."))


def _next_url(request) -> str:
    target = request.POST.get("next") or ""
    safe = url_has_allowed_host_and_scheme(target, allowed_hosts=None, require_https=request.is_secure())
    return target if safe and target.startswith("/") else reverse("lobby:home")


def logout_page(request):
    """Log out. A guest is warned first (a page with a sign-up offer) and logs out by
    confirming: the name and every unfinished match are given up then, not stranded."""
    user = request.user
    if not user.is_authenticated:
        return redirect("lobby:home")
    guest_user = user.is_guest
    if request.method == "POST" and (not guest_user or request.POST.get("confirm") == "1"):
        if guest_user:
            accounts.guest_leave(user=user)
        logout(request)
        if guest_user:
            messages.info(request, _("You have logged out; the name %(name)s is free again.") % {"name": user.display_name})
        return redirect("lobby:home")
    return render(request, "registration/logout.html", {
        "guest": guest_user, "unfinished": selectors.matches_of_player(user=user)})


@require_POST
def language_set(request):
    """The footer's language menu: Django's ``set_language`` (the cookie, and back to the page),
    and for a signed-in account its choice kept on the account too."""
    chosen = language.supported(request.POST.get("language"))
    # Only a language of the menu is kept (Django's own check accepts any with a catalogue).
    request.POST = request.POST.copy()
    request.POST["language"] = chosen or ""
    response = set_language(request)
    if chosen is not None and request.user.is_authenticated:
        accounts.user_language_set(user=request.user, language=chosen)
    return response
