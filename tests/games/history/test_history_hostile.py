"""The GGP import against hostile files: every refusal is a 4xx form error, nothing is stored,
and the history pages keep working whatever was stored before."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client

from games.history.services import IMPORT_MAX_BYTES
from games.models import Match, Move, Seat
from tests.games.history.conftest import finished_match
from tests.games.history.test_history_ggp import export, refusal, upload, uploader, with_changes  # noqa: F401

pytestmark = pytest.mark.django_db


def counts():
    return Match.objects.count(), Seat.objects.count(), Move.objects.count()


def names(*values):
    return lambda d: d.update(playerNamesFromHost=list(values))


def _times(value):
    def change(data):
        data["stateTimes"][-1] = value
    return change


HOSTILE = [
    ("lone surrogate name", names("\ud800", "b"), "broken text"),
    ("NUL name", names("a\x00b", "b"), "broken text"),
    ("surrogate in roles", lambda d: d.update(matchRoles=["\udfff", "x"]), "broken text"),
    ("surrogate in matchId", lambda d: d.update(matchId="\ud800"), "broken text"),
    ("bidi override name", names("a\u202eb", "b"), "formatting character"),
    ("control name", names("a\x1bb", "b"), "control character"),
    ("long name", names("n" * 61, "b"), "at most 60 characters"),
    ("huge name", names("n" * 450_000, "b"), "at most 60 characters"),
    ("long matchId", lambda d: d.update(matchId="m" * 101), "at most 100 characters"),
    ("number matchId", lambda d: d.update(matchId=5), "'matchId' must be text"),
    ("object matchId", lambda d: d.update(matchId={"id": "m1"}), "'matchId' must be text"),
    ("list matchId", lambda d: d.update(matchId=["m1"]), "'matchId' must be text"),
    ("true matchId", lambda d: d.update(matchId=True), "'matchId' must be text"),
    ("start 1e20", lambda d: d.update(startTime=10**20), "'startTime' must be a time"),
    ("start -1e20", lambda d: d.update(startTime=-10**20), "'startTime' must be a time"),
    ("start year 10000", lambda d: d.update(startTime=253402300800000), "'startTime' must be a time"),
    ("start float", lambda d: d.update(startTime=1e20), "'startTime' must be a time"),
    ("state time 1e20", _times(10**20), "'stateTimes' must be a time"),
    ("state time -1e20", lambda d: d["stateTimes"].__setitem__(0, -10**20), "'stateTimes' must be a time"),
    ("state time year 10000", _times(253402300800000), "'stateTimes' must be a time"),
    ("Arabic-Indic digit", lambda d: d["moves"][0].__setitem__(0, d["moves"][0][0].replace("1", "\u0661", 1)),
     "Step 1: illegal move"),
    ("long action", lambda d: d["moves"][0].__setitem__(0, d["moves"][0][0] * 3), "Step 1: illegal move"),
    ("deep under a key", lambda d: d.update(extra=[[[[[[[[[["deep"]]]]]]]]]]), "nested more than"),
]


@pytest.mark.parametrize("name,change,reason", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_files_are_refused_and_nothing_is_stored(name, change, reason, played, uploader):  # noqa: F811
    payload = with_changes(refusal(played), change)
    before = counts()
    response = upload(uploader, payload)
    assert response.status_code == 400
    errors = " ".join(response.context["form"].errors["file"])
    assert reason in errors, errors
    assert counts() == before


@pytest.mark.parametrize("depth", [2_000, 100_000])
def test_json_nested_thousands_deep_is_refused(depth, uploader):  # noqa: F811
    response = upload(uploader, b"[" * depth + b"]" * depth)
    assert response.status_code == 400
    assert "nested" in " ".join(response.context["form"].errors["file"])


def test_names_are_cleaned_and_kept(played, uploader):  # noqa: F811
    upload(uploader, with_changes(refusal(played), names("  Ada\u3000 Lovelace ", "Zoe\u0301")))
    assert Match.objects.latest("pk").result["imported_names"] == {"xPlayer": "Ada Lovelace", "oPlayer": "Zo\u00e9"}


def test_actions_are_stored_in_their_canonical_spelling(played, uploader):  # noqa: F811
    data = refusal(played)
    first = data["moves"][0][0]
    data["moves"][0][0] = "( " + first[1:-1].upper().replace(" ", "\t ") + " )"
    assert upload(uploader, data).status_code == 302
    assert Match.objects.latest("pk").moves.get(ply=1).action == first


MATCH_IDS = {"kept": lambda d: None, "left out": lambda d: d.pop("matchId"), "null": lambda d: d.update(matchId=None),
             "blank": lambda d: d.update(matchId="  "), "another": lambda d: d.update(matchId="another")}


@pytest.mark.parametrize("first,second", [("kept", "kept"), ("left out", "left out"), ("null", "null"),
                                          ("blank", "left out"), ("kept", "left out"), ("kept", "another")])
def test_the_same_match_twice_leads_to_the_first_import_whatever_its_match_id(
        first, second, played, uploader):  # noqa: F811
    """The match's content (game, names, moves, start time) makes it the same, not its matchId."""
    data = refusal(played)
    assert upload(uploader, with_changes(data, MATCH_IDS[first])).status_code == 302
    imported = Match.objects.latest("pk")
    before = counts()
    again = upload(uploader, with_changes(data, MATCH_IDS[second]))
    assert again.status_code == 302 and again["Location"] == f"/matches/{imported.pk}/replay/"
    assert counts() == before
    assert "was imported before" in uploader.get(again["Location"]).content.decode()
    later = with_changes(data, lambda d: d.update(stateTimes=[t + 1000 for t in d["stateTimes"]]))
    assert upload(uploader, with_changes(later, MATCH_IDS[second])).status_code == 302  # another match
    assert counts() != before


def test_a_request_far_over_the_limit_is_refused_unread(uploader):  # noqa: F811
    big = SimpleUploadedFile("big.json", b" " * (IMPORT_MAX_BYTES + 100_000), "application/json")
    response = uploader.post("/history/import/", {"file": big})
    assert response.status_code == 413 and "larger than" in response.content.decode()


def test_a_file_just_over_the_limit_is_refused_by_its_size(uploader):  # noqa: F811
    big = SimpleUploadedFile("big.json", b" " * (IMPORT_MAX_BYTES + 1), "application/json")
    response = uploader.post("/history/import/", {"file": big})
    assert response.status_code == 400 and "larger than" in response.content.decode()


@pytest.mark.parametrize("declared", ["abc", "1e3", "0x10", ""])
def test_a_declared_length_that_is_not_a_number_is_refused_unread(uploader, declared):  # noqa: F811
    before = counts()
    response = uploader.generic("POST", "/history/import/", b"{}", content_type="application/json",
                                CONTENT_LENGTH=declared)
    assert response.status_code == 400  # a 500 before, for the first three
    assert counts() == before


def test_a_post_with_no_fields_shows_the_forms_errors(uploader, client):  # noqa: F811
    """An empty POST is a submitted form, not a blank one: its errors are shown."""
    imported = uploader.post("/history/import/", {})
    assert imported.status_code == 400 and "required" in imported.content.decode()
    signup = client.post("/signup/", {})
    assert signup.status_code == 200 and "required" in signup.content.decode()


def test_history_pages_survive_stored_names_from_before_the_policy(players):
    a, b, *_ = players
    match = finished_match("quarto-misere", [a, b], ["won", "lost"])
    match.seats.filter(role=match.seats.first().role).update(player=None)
    # PostgreSQL cannot store NUL or unpaired surrogates at all; SQLite could, before the policy.
    bad = "\ud800\x00" if connection.vendor == "sqlite" else "\u202e" + "n" * 500
    match.result["imported_names"] = {role: bad for role in ("white", "black")}
    match.save(update_fields=["result"])
    client = Client()
    for url in ("/history/", f"/matches/{match.pk}/replay/", f"/players/{b.pk}/"):
        page = client.get(url)
        assert page.status_code == 200, url
        page.content.decode("utf-8")
    assert client.get(f"/matches/{match.pk}/export.json").status_code in (200, 409)
