"""Old data migrations keep frozen copies of the app code they ran (as 0020 keeps its
``import_key``): what a migration does to a database must not change when today's code does.
Each copy is checked against today's code here, so a divergence is noticed: when today's
behaviour changes on purpose, these tests change (and a new migration brings the stored rows to
it), never the frozen copy in the old migration."""

import importlib
import random

import pytest
from django.apps import apps
from django.db import connection

from games.match import text
from games.match.text import TextRefused, text_clean, without_refused
from games.models import ChatMessage, Move
from games.rules import REGISTRY, RulesError, get_game
from games.rules.base import Game
from lobby.models import User
from tests.support.players import make_players, start_match

respell = importlib.import_module("games.migrations.0006_canonical_actions")
chat_clean = importlib.import_module("games.migrations.0007_chat_text_policy")
name_policy = importlib.import_module("lobby.migrations.0004_user_name_key")
name_unique = importlib.import_module("lobby.migrations.0005_display_name_unique")


def todays_spelling(slug, action):
    try:
        return get_game(slug).canonical_action(action)
    except (RulesError, KeyError):
        return None


def some_actions(slug: str) -> list[str]:
    """Actions met along a random game of ``slug``, with every kind the rule set has."""
    game, rng = get_game(slug), random.Random(slug)
    state, met = game.initial_state(), []
    while (mover := game.to_move(state)) is not None:
        legal = game.legal_actions(state)
        met += rng.sample(legal, min(4, len(legal)))
        state = game.play(state, mover, rng.choice(legal))
    return met


def odd_spellings(action: str) -> list:
    """Spellings the rules fold to ``action``, and near misses they refuse."""
    return [action, action.upper(), f" {action}\t", action.replace(" ", "  "), action.replace(" ", "\n"),
            action.replace("(", "( ").replace(")", " )"), action.replace(" 1", " 01"), action.replace(" 2", " -2"),
            action.replace(" 1", " 0"), action.replace(" 3", " 4"), action.replace(" 3", " 6"),
            action.replace(" 2", " \u0662"), action.replace(" ", "\u3000", 1), action.replace(" ", "\x0b", 1),
            action + " " * (40 - len(action)), action + " " * (41 - len(action)), action[:-1]]


ODD_ACTIONS = ["", "noop", "swap", "SWAP", " swap ", "(play 1 1 1 1 z)", "(play 1 1 1 1 xo)", "(mark 1 1)",
               "(mark 5 5)", "(select p2000)", "(select p00001)", "(place p0000 1 1 1)", "(place p1111 4 4)",
               "(mark 1 1 1 1)", "((mark 1 1))", "(mark 1 1", None, 7, b"(mark 1 1)"]


@pytest.mark.pure
def test_the_respelling_migration_keeps_a_frozen_copy_that_agrees_with_todays_rules():
    """0006 respells with ``frozen_canonical_action``: on every rule set's actions, their odd
    spellings, near misses and other games' actions it says what today's rules say. Today's
    rules changing the spelling on purpose fails here: change this test then (and respell the
    stored moves in a migration of its own), never the frozen copy."""
    inputs = ODD_ACTIONS + [odd for slug in REGISTRY.games for action in some_actions(slug)
                            for odd in odd_spellings(action)]
    for slug in [*REGISTRY.games, "chess"]:
        for action in inputs:
            assert respell.frozen_canonical_action(slug, action) == todays_spelling(slug, action), (slug, action)


def todays_line(line: str) -> str:
    try:
        return text_clean(without_refused(line), max_length=300)
    except TextRefused:
        return chat_clean.UNREADABLE


CHAT_LINES = [
    "good game", "  spaced \t out \n line ", "tab\there", "\u202eevil\u202c text", "\u200b\u200b", "a\u0007b",
    "NUL\x00", "\ud800 broken", "bad \ufffd bytes", "private \ue000 use", "unassigned \u0378 point",
    "e\u0301 composed", "\u0301\u0300", "\u3164", "\u2800 braille blank", "family \U0001f468\u200d\U0001f469",
    "\u200c", "non\u00a0breaking", "\u2028line separator", "ideographic\u3000space", "", "   ", "x" * 300,
    "x" * 301, "x" * 299 + "\u200b\u200b", "\u0958" * 150, "\u0958" * 151, "Zoë «the first» 名前",
]


@pytest.mark.pure
def test_the_chat_cleaning_migration_keeps_a_frozen_copy_that_agrees_with_todays_policy():
    """0007 cleans with ``frozen_line_clean``: on control, format, private, unassigned and broken
    characters, blank-looking lines, composing marks and lengths it says what today's text
    policy says. The policy changing on purpose fails here: change this test then (and clean
    the stored lines in a migration of its own), never the frozen copy."""
    for line in CHAT_LINES:
        assert chat_clean.frozen_line_clean(line) == todays_line(line), line


@pytest.mark.django_db
def test_the_respelling_migration_does_what_it_did_whatever_the_rules_do_today(monkeypatch):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    Move.objects.create(match=match, ply=1, role="xPlayer", action="( PLAY 2 2 2 2 X )")
    Move.objects.create(match=match, ply=2, role="oPlayer", action="(play \u0662 2 1 1 o)")
    monkeypatch.setattr(Game, "canonical_action", lambda self, action: "(a spelling of tomorrow)")
    respell.canonical(apps, None)
    assert list(match.moves.order_by("ply").values_list("action", flat=True)) == [
        "(play 2 2 2 2 x)", "(play \u0662 2 1 1 o)"]


@pytest.mark.django_db
def test_the_chat_cleaning_migration_does_what_it_did_whatever_the_policy_does_today(monkeypatch):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    lines = [ChatMessage.objects.create(match=match, author=x, text=t)
             for t in ["good game", "\u202eevil\u202c text", "\u200b\u200b"]]
    monkeypatch.setattr(text, "_refusal", lambda char: "refused tomorrow")  # every character
    chat_clean.clean(apps, None)
    assert [ChatMessage.objects.get(pk=line.pk).text for line in lines] == [
        "good game", "evil text", chat_clean.UNREADABLE]


def todays_display_name(name):
    try:
        return text.display_name_clean(name)
    except TextRefused:
        return None


NAMES = CHAT_LINES + [
    "Ada", "ada", "ＡＤＡ", "A d a", "Аda", "computer", "Computer 2", "COMPUTER", "Cоmputer", " c o m p u t e r",
    "ｃｏｍｐｕｔｅｒ", "Compute", "my computer", "‍computer", "ǅ digraph", "ﬁ ligature", "Straße", "ΣΑΣ",
    "İstanbul", "x" * 30, "x" * 31, " " + "x" * 30 + " ", "x" * 29 + "́", "é" * 16, "①②③", "½",
    "𝐀 bold", "😀", "؀ arabic sign", "᠎ mongolian", "﻿bom", "­ soft hyphen",
    "a b", "ab", "ᅠㅤ", "ㅤ x", None, 30, b"Ada",
]


def some_names(count: int = 2000) -> list[str]:
    """Random names from a pool of letters, marks, spaces, look-alikes and refused characters."""
    pool = ("aAzZ09 \t\n 　́̀‌‍​‮͸�ㅤ⠀"
            "аеорсхуіјѕԁɡοανＡａǅﬁßİΣक़가👨")
    rng = random.Random("names")
    return ["".join(rng.choice(pool) for _ in range(rng.randint(0, 34))) for _ in range(count)]


@pytest.mark.pure
def test_the_display_name_migrations_keep_frozen_copies_that_agree_with_todays_policy():
    """lobby 0004 cleans names with ``frozen_display_name`` and keys them with
    ``frozen_name_key`` (0005 too, and cuts names to its own ``NAME_MAX``): on refused, blank,
    composing, folding, look-alike, over-long and reserved names they say what today's policy
    says. The policy changing on purpose fails here: change this test then (and bring the
    stored names to it in a migration of its own), never the frozen copies."""
    assert name_policy.NAME_MAX == name_unique.NAME_MAX == text.NAME_MAX
    assert name_unique.frozen_name_key is name_policy.frozen_name_key
    for name in NAMES + some_names():
        assert name_policy.frozen_display_name(name) == todays_display_name(name), name
        if isinstance(name, str):
            assert name_policy.frozen_name_key(name) == text.name_key(name), name


@pytest.mark.django_db
def test_the_display_name_migration_does_what_it_did_whatever_the_policy_does_today(monkeypatch):
    ada, evil, computer, blank = make_players(4)
    names = {ada: "ＡＤＡ  lovelace", evil: "\u202eevil", computer: "Computer Jones", blank: "\u3164"}
    for user, name in names.items():
        User.objects.filter(pk=user.pk).update(display_name=name, name_key="")
    monkeypatch.setattr(text, "_refusal", lambda char: "refused tomorrow")  # every character
    monkeypatch.setattr(text, "name_key", lambda name: "a key of tomorrow")
    name_policy.apply_policy(apps, None)
    assert {user: tuple(User.objects.filter(pk=user.pk).values_list("display_name", "name_key").get())
            for user in names} == {ada: ("ＡＤＡ lovelace", "adalovelace"), evil: (f"Player {evil.pk}", f"player{evil.pk}"),
                                   computer: (f"Player {computer.pk}", f"player{computer.pk}"),
                                   blank: (f"Player {blank.pk}", f"player{blank.pk}")}


@pytest.mark.django_db
def test_the_unique_name_migration_does_what_it_did_whatever_the_policy_does_today(monkeypatch):
    first, later = make_players(2)
    with connection.cursor() as cursor:  # the constraint 0005 adds, absent while it runs
        cursor.execute("DROP INDEX display_name_unique")
    for user in (first, later):
        User.objects.filter(pk=user.pk).update(display_name="Ａda " + "x" * 26, name_key="ada" + "x" * 26)
    monkeypatch.setattr(text, "name_key", lambda name: "a key of tomorrow")
    monkeypatch.setattr(text, "NAME_MAX", 300)
    name_unique.rename_later_duplicates(apps, None)
    suffix = f" #{later.pk}"
    assert User.objects.filter(pk=later.pk).values_list("display_name", "name_key").get() == (
        "Ａda " + "x" * (26 - len(suffix)) + suffix, "ada" + "x" * (26 - len(suffix)) + suffix.strip())
    assert User.objects.filter(pk=first.pk).values_list("display_name", flat=True).get() == "Ａda " + "x" * 26
