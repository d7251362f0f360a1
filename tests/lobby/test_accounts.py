"""lobby.services: guests, sign-up keeping a guest's matches."""

import pytest

from games import services
from games.match.settings import MatchSettings
from games.services import ServiceError
from lobby.models import User
from lobby.services import account_signup, guest_create

pytestmark = pytest.mark.django_db

STRONG = "correct-horse-battery-staple"


def test_guest_gets_a_name_and_no_password():
    guest = guest_create(display_name="  Ada   Lovelace ")
    assert guest.display_name == "Ada Lovelace" and guest.is_guest
    assert not guest.has_usable_password()
    assert guest_create(display_name="Ada Byron").username != guest.username


@pytest.mark.parametrize("name", ["", "   ", "x" * 31, "a\u202eb", "\u200b", "Computer (easy)", "a\x00"])
def test_guest_name_is_checked(name):
    with pytest.raises(ServiceError) as info:
        guest_create(display_name=name)
    assert info.value.code == "invalid_name"
    assert not User.objects.exists()


@pytest.mark.parametrize("taken", ["Ada Lovelace", "ada lovelace", "ADA  LOVELACE", "Аda Lovelace"])
def test_a_name_another_player_goes_by_is_refused(taken):
    first = guest_create(display_name="Ada Lovelace")
    with pytest.raises(ServiceError) as info:
        guest_create(display_name=taken)
    assert info.value.code == "name_taken"
    assert list(User.objects.all()) == [first]
    with pytest.raises(ServiceError):
        account_signup(username="ada2", password=STRONG, display_name=taken)
    account_signup(username="ada", password=STRONG, display_name=taken, guest=first)  # its own name


def test_a_guest_signs_up_and_keeps_its_matches():
    guest = guest_create(display_name="Grace")
    match = services.match_create(user=guest, settings=MatchSettings("quarto-misere"), role="white")
    user = account_signup(username="grace", password=STRONG, guest=guest)
    assert user.pk == guest.pk and not user.is_guest and user.check_password(STRONG)
    assert match.seats.get(role="white").player_id == user.pk
    assert user.display_name == "Grace"


def test_signup_refusals_save_nothing():
    account_signup(username="alan", password=STRONG)
    for kwargs, code in [({"username": "ALAN", "password": STRONG}, "username_taken"),
                         ({"username": "bad name!", "password": STRONG}, "invalid_username"),
                         ({"username": "kurt", "password": "123"}, "weak_password")]:
        with pytest.raises(ServiceError) as info:
            account_signup(**kwargs)
        assert info.value.code == code
    assert list(User.objects.values_list("username", flat=True)) == ["alan"]


def test_a_sign_up_is_refused_when_asked_only_once_every_check_has_passed():
    """The view's per-address count goes by ``refusal``: a sign-up refused for its input is not
    counted, and one refused by it saves nothing (a guest stays a guest)."""
    asked = []

    def refusal():
        asked.append(True)
        return "Not now."

    guest = guest_create(display_name="Grace")
    guest_username = guest.username
    for kwargs in [{"username": "bad name!", "password": STRONG}, {"username": "kurt", "password": "123"}]:
        with pytest.raises(ServiceError):
            account_signup(refusal=refusal, **kwargs)
    assert not asked
    with pytest.raises(ServiceError) as info:
        account_signup(username="grace", password=STRONG, guest=guest, refusal=refusal)
    assert info.value.code == "too_many_signups" and info.value.message == "Not now." and asked == [True]
    assert list(User.objects.values_list("username", "is_guest")) == [(guest_username, True)]


@pytest.mark.parametrize("username, reserved", [
    ("computer-easy-1", "computer"), ("Computer-Strong-2", "computer"), ("COMPUTER", "computer"),
    ("computerwiz", "computer"), ("guest-0a1b2c3d4e5f", "guest-"), ("Guest-x", "guest-"),
    ("ggp-0123456789ab", "ggp-"), ("GGP-x", "ggp-")])
def test_the_sites_own_account_names_cannot_be_signed_up_for(username, reserved):
    """The refusal names the start the name has (each reserved one, 'ggp-' too)."""
    with pytest.raises(ServiceError) as info:
        account_signup(username=username, password=STRONG, display_name="Mallory")
    assert info.value.code == "reserved_username"
    assert f"'{reserved}'" in info.value.message
    assert not User.objects.exists()


def test_a_person_holding_a_computer_account_name_is_never_seated_as_the_computer(caplog):
    """An account made before those names were refused: the match is not made, and nobody is
    seated as the computer."""
    User.objects.create(username="computer-easy-1", display_name="Mallory", password="!")
    victim = guest_create(display_name="Victim")
    with pytest.raises(ServiceError) as info:
        services.match_create(user=victim, settings=MatchSettings("quarto-misere"), role="white",
                              against_computer=True, computer_level=1)
    assert info.value.code == "computer_unavailable"
    assert "belongs to a person" in caplog.text
    from games.models import Match

    assert not Match.objects.exists()
    other_level = services.match_create(user=victim, settings=MatchSettings("quarto-misere"), role="white",
                                        against_computer=True, computer_level=2)
    assert other_level.seats.get(role="black").player.is_computer


def test_a_rename_in_the_admin_frees_the_old_name():
    from django.contrib.admin.sites import site

    rude = guest_create(display_name="Rude Name")
    rude.display_name = "Renamed"
    site._registry[User].save_model(None, rude, None, True)
    assert guest_create(display_name="rude name").display_name == "rude name"
    with pytest.raises(ServiceError):
        guest_create(display_name="RENAMED")


def test_the_database_refuses_a_second_player_with_the_same_name_key():
    from django.db import IntegrityError, transaction

    guest_create(display_name="Ada")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="sneaky", display_name="ADA", name_key="ada")
    User.objects.create(username="computer-x", display_name="Computer (easy)")  # no key: not a person's name
    User.objects.create(username="computer-y", display_name="Computer (strong)")


def test_the_database_refuses_user_names_differing_only_in_case():
    from django.db import IntegrityError, transaction

    account_signup(username="Alan", password=STRONG)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="aLAN", display_name="Other Alan")
    assert list(User.objects.values_list("username", flat=True)) == ["Alan"]


@pytest.mark.django_db(transaction=True)
def test_sign_ups_at_once_for_one_name_in_two_cases_make_one_account(monkeypatch):
    """On PostgreSQL both sign-ups are held just before saving until both have checked the name
    (the race lost every time): both used to succeed, the display names being different; the
    database now refuses the second, which is told the name is taken. SQLite's writers take its
    lock at the start of the transaction, so there the second simply finds the first."""
    import threading

    from django.db import connection

    from tests.support.players import run_at_once
    from tests.support.waits import EVENT_SECONDS

    if connection.vendor == "postgresql":
        both_checked = threading.Barrier(2)
        unpatched = User.save

        def save_when_both_have_checked(user, *args, **kwargs):
            both_checked.wait(timeout=EVENT_SECONDS)  # a generous ceiling: hashing a password is slow on a loaded machine
            return unpatched(user, *args, **kwargs)

        monkeypatch.setattr(User, "save", save_when_both_have_checked)
    outcomes = run_at_once([lambda u=u, d=d: account_signup(username=u, password=STRONG, display_name=d)
                            for u, d in (("Kurt", "Kurt"), ("kURT", "Gödel"))])
    assert sorted(outcomes) == ["ok", "username_taken"]
    assert User.objects.filter(username__iexact="kurt").count() == 1


def test_signing_in_finds_the_account_whatever_the_case_typed():
    from django.contrib.auth import authenticate

    user = account_signup(username="Grace", password=STRONG)
    assert authenticate(username="gRACE", password=STRONG) == user
    assert authenticate(username="grace", password="wrong-horse") is None
    assert authenticate(username="Grace2", password=STRONG) is None


def test_guests_no_session_signs_in_are_ended_as_if_they_had_logged_out():
    from datetime import timedelta
    from io import StringIO

    from django.contrib.sessions.models import Session
    from django.core.management import call_command
    from django.utils import timezone

    from games.models import Match
    from lobby.services import GUEST_GRACE, guests_expire
    from tests.support.players import play_first_moves, session_cookie, start_match

    gone, here, opponent, member = (guest_create(display_name=name) for name in ("Gone", "Here", "Opp", "Member"))
    account_signup(username="member", password=STRONG, guest=member)
    match = play_first_moves(start_match("quarto-misere", [gone, opponent]), [gone, opponent])
    for user in (gone, here, opponent):
        session_cookie(user)
    User.objects.update(date_joined=timezone.now() - GUEST_GRACE - timedelta(minutes=1))
    new = guest_create(display_name="Just Made")  # its session is not saved yet
    assert guests_expire() == 0  # every older guest still has its session
    gones = [s.pk for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(gone.pk)]
    Session.objects.filter(pk__in=gones).update(expire_date=timezone.now() - timedelta(seconds=1))

    call_command("guests_expire", stdout=(out := StringIO()))
    assert out.getvalue().strip() == "1 guest ended."
    assert set(User.objects.filter(is_active=True).values_list("pk", flat=True)) == {here.pk, opponent.pk,
                                                                                   member.pk, new.pk}
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["winners"] == ["black"]
    assert guest_create(display_name="Gone").display_name == "Gone"  # the name is free again
    assert guests_expire() == 0
