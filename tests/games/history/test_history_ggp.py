"""Export to the GGP match format and import back: every game, and every refusal."""

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from games import services as game_services
from games.ggp.gdl import kif
from games.ggp.gdl.reasoner import Reasoner
from games.ggp.gdl.sheets import SHEET_VERSION, sheet_text
from games.history.ggp import gdl_normalize, legacy_state_gdl, state_gdl
from games.models import Match, Move, Seat
from games.rules import SLUGS, get_game
from tests.games.history.conftest import FIVE_GAMES
from tests.support.ggp_validation import match_problems
from tests.support.players import make_players, play_out, start_match

pytestmark = pytest.mark.django_db


def export(client, match) -> dict:
    response = client.get(f"/matches/{match.pk}/export.json")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="boardhall-{match.game}-{match.pk}.json"'
    return json.loads(response.content)


def upload(client, data, name="match.json"):
    content = data if isinstance(data, bytes) else json.dumps(data).encode()
    return client.post("/history/import/", {"file": SimpleUploadedFile(name, content, "application/json")})


@pytest.fixture
def uploader():
    user, = make_players(1, "uploader")
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("slug", FIVE_GAMES)
def test_export_then_import_gives_the_same_match(slug, played, uploader):
    match, people = played(slug, seed=7)
    game = get_game(slug)
    data = export(Client(), match)
    stored = list(match.moves.values_list("role", "action"))
    assert data["gameSlug"] == slug and data["matchRoles"] == list(game.roles)
    assert data["matchId"] == f"boardhall.{match.pk}" and data["randomToken"] == match.random_token
    assert data["playerNamesFromHost"] == [p.display_name for p in people]
    assert data["isCompleted"] is True and data["isAborted"] is False
    assert data["isPlayerHuman"] == [True] * len(game.roles) and "replacedMoves" not in data
    assert data["goalValues"] == [match.result["scores"][r] for r in game.roles]
    assert len(data["moves"]) == len(stored) and len(data["states"]) == len(stored) + 1
    assert len(data["stateTimes"]) == len(stored) + 1 and data["startTime"] == data["stateTimes"][0]
    for joint, (role, action) in zip(data["moves"], stored):
        assert joint == [action if r == role else "noop" for r in game.roles]
    final = game.state_from_json(match.state)
    assert data["states"][-1] == state_gdl(game, final)

    before = Match.objects.count()
    response = upload(uploader, data)
    assert response.status_code == 302
    imported = Match.objects.exclude(pk__lte=match.pk).get()
    assert Match.objects.count() == before + 1
    assert response["Location"] == f"/matches/{imported.pk}/replay/"
    assert list(imported.moves.values_list("role", "action")) == stored
    assert imported.status == Match.Status.FINISHED and imported.version == match.version
    assert game.state_from_json(imported.state) == final
    for key in ("scores", "winners", "draw", "reason"):
        assert imported.result[key] == match.result[key]
    assert imported.result["imported_names"] == dict(zip(game.roles, data["playerNamesFromHost"]))
    assert list(imported.seats.values_list("role", "player", "score", "outcome")) == \
        [(s.role, None, s.score, s.outcome) for s in match.seats.all()]
    again = export(Client(), imported)
    for key in ("moves", "states", "stateTimes", "goalValues", "playerNamesFromHost", "gameSlug", "isPlayerHuman"):
        assert again[key] == data[key]


def test_ggp_base_spacing_and_missing_states_are_accepted(played, uploader):
    match, _ = played("tictactoe-3player", seed=2)
    data = export(Client(), match)
    data["moves"] = [[a.replace("(", "( ").replace(")", " )") for a in joint] for joint in data["moves"]]
    del data["states"], data["stateTimes"], data["matchRoles"]
    assert upload(uploader, data).status_code == 302
    assert gdl_normalize("( mark  1 1 )") == "(mark 1 1)"


def test_a_resigned_match_round_trips(uploader):
    people = make_players(2)
    match = play_out(start_match("quarto-misere", people), people, max_moves=5)
    game_services.match_resign(match_id=match.pk, user=people[0])
    match.refresh_from_db()
    data = export(Client(), match)
    assert data["resigned"] == ["white"] and data["goalValues"] == [0, 100]
    assert upload(uploader, data).status_code == 302
    imported = Match.objects.latest("pk")
    assert imported.result["winners"] == ["black"] and imported.seats.get(role="white").resigned


def facts(text: str) -> frozenset[str]:
    return frozenset(kif.to_text(fact) for fact in kif.parse_term(text))


@pytest.mark.parametrize("slug", SLUGS)
def test_exported_states_are_the_sheets_states_step_by_step(slug, played):
    """A GGP tool's check: replay the exported moves through the site's own GDL sheet (the one
    sent to GGP players) and compare every exported state with the reasoner's."""
    match, _ = played(slug, seed=3)
    data = export(Client(), match)
    reasoner = Reasoner(sheet_text(slug))
    assert reasoner.roles == data["matchRoles"]
    state = reasoner.initial()
    assert facts(data["states"][0]) == state
    for number, (joint, text) in enumerate(zip(data["moves"], data["states"][1:]), start=1):
        assert not reasoner.terminal(state)
        for role, move in zip(reasoner.roles, joint):
            assert move in reasoner.legal(state, role), (number, role, move)
        state = reasoner.next(state, dict(zip(reasoner.roles, joint)))
        assert facts(text) == state, number
        assert text == f"({' '.join(sorted(state))})"  # sorted, in the sheet's own spelling
    assert reasoner.terminal(state)
    assert data["goalValues"] == [reasoner.goal(state, role) for role in reasoner.roles]
    assert match_problems(data) == []  # as ggp.org's spectator server checks it
    assert data["errors"] == [[""] * len(reasoner.roles)] * len(data["states"])


@pytest.mark.parametrize("slug", SLUGS)
def test_the_game_address_serves_the_sheet_as_a_ggp_repository_does(slug, played, settings):
    """``gameMetaURL`` is the game's address: its metadata names the sheet beside it, which is the
    sheet the states were checked against."""
    match, _ = played(slug, seed=2)
    url = export(Client(), match)["gameMetaURL"]
    assert url == f"{settings.SITE_URL}/rules/{slug}/v{SHEET_VERSION}/"
    path = url.removeprefix(settings.SITE_URL)
    meta = Client().get(path).json()
    assert meta["roleNames"] == list(get_game(slug).roles) and meta["version"] == SHEET_VERSION
    assert Client().get(path + meta["rulesheet"]).content.decode() == sheet_text(slug)
    assert Client().get(f"/rules/{slug}/v{SHEET_VERSION + 1}/").status_code == 404
    assert Client().get(f"/rules/{slug}/v{SHEET_VERSION + 1}/{meta['rulesheet']}").status_code == 404
    assert Client().get(f"/rules/no-such-game/v{SHEET_VERSION}/").status_code == 404


def _broken(data, change):
    changed = copy.deepcopy(data)
    change(changed)
    return changed


SPECTATOR_REFUSALS = {
    "a state too few": (lambda d: d["states"].pop(), "states but"),
    "a state time too few": (lambda d: d["stateTimes"].pop(), "state times"),
    "goals of an unfinished match": (lambda d: d.update(isCompleted=False), "goalValues while isCompleted"),
    "a goal too few": (lambda d: d["goalValues"].pop(), "goalValues is not one value"),
    "a null": (lambda d: d["playerNamesFromHost"].__setitem__(0, None), "null at"),
    "no game address": (lambda d: d.pop("gameMetaURL"), "no gameMetaURL"),
    "an unversioned address": (lambda d: d.update(gameMetaURL="http://x/rules/quarto/"), "version-qualified"),
    "a short token": (lambda d: d.update(randomToken="abc"), "randomToken shorter"),
    "time going back": (lambda d: d["stateTimes"].__setitem__(1, d["stateTimes"][0] - 1), "goes back"),
    "a time before 2008": (lambda d: d.update(startTime=0), "before January 2008"),
    "an errors row too few": (lambda d: d["errors"].pop(), "errors is not one row"),
    "a move of another width": (lambda d: d["moves"][1].append("noop"), "move 1 is not"),
    "no play clock": (lambda d: d.pop("playClock"), "no playClock"),
}


@pytest.mark.parametrize("change, problem", SPECTATOR_REFUSALS.values(), ids=SPECTATOR_REFUSALS.keys())
def test_the_spectator_checks_refuse_what_ggp_orgs_server_refuses(change, problem, played):
    match, _ = played("tictactoe-x9", seed=5)
    data = export(Client(), match)
    assert match_problems(data) == []
    problems = match_problems(_broken(data, change))
    assert any(problem in p for p in problems), problems


def test_states_in_the_older_spelling_or_any_order_still_import(played, uploader):
    match, _ = played("nine-board-tictactoe-pie", seed=4)
    data = export(Client(), match)
    game = get_game(match.game)
    state, positions = game.initial_state(), []
    for role, action in match.moves.values_list("role", "action"):
        positions.append(state)
        state = game.next_state(state, game.joint(state, action))
    positions.append(state)
    older = with_changes(data, lambda d: d.update(states=[legacy_state_gdl(game, p) for p in positions]))
    assert "(currentboard" in " ".join(older["states"]) and older["states"] != data["states"]
    assert upload(uploader, older).status_code == 302
    shuffled = with_changes(data, lambda d: d.update(
        states=["( " + " ".join(kif.to_text(f).upper() for f in reversed(kif.parse_term(t))) + " )"
                for t in d["states"]]))
    Match.objects.exclude(pk=match.pk).delete()
    assert upload(uploader, shuffled).status_code == 302


def refusal(played):
    match, _ = played("nine-board-tictactoe", seed=1)
    return export(Client(), match)


def with_changes(data, change):
    data = copy.deepcopy(data)
    change(data)
    return data


def _illegal(data):
    data["moves"][1] = ["noop", "(play 9 9 9 9 o)"]


def _occupied(data):
    data["moves"][2][0] = data["moves"][0][0]


def _after_end(data):
    data["moves"].append(["(play 1 1 1 1 x)", "noop"])
    data["states"].append(data["states"][-1])
    data["stateTimes"].append(data["stateTimes"][-1])


def _unfinished(data):
    for key in ("moves", "states", "stateTimes"):
        data[key] = data[key][:-1]


CASES = [
    ("not json", b"{not json", "not JSON"),
    ("not an object", [1, 2], "one JSON object"),
    ("unknown game", lambda d: d.update(gameSlug="chess"), "Unknown game 'chess'"),
    ("no game", lambda d: d.pop("gameSlug"), "which game"),
    ("wrong roles", lambda d: d.update(matchRoles=["red", "blue"]), "Wrong roles"),
    ("roles swapped", lambda d: d.update(gameRoleNames=["oPlayer", "xPlayer"]), "Wrong roles"),
    ("illegal move", _illegal, "Step 2: illegal move"),
    ("occupied cell", _occupied, "Step 3: illegal move"),
    ("wrong count", lambda d: d["moves"][0].append("noop"), "Step 1: a move must list one action per role"),
    ("moves after the end", _after_end, "moves after the end"),
    ("not completed", lambda d: d.update(isCompleted=False), "not completed"),
    ("aborted", lambda d: d.update(isAborted=True), "aborted"),
    ("game not over", _unfinished, "not over after the last"),
    ("other goals", lambda d: d.update(goalValues=list(reversed(d["goalValues"]))), "differ from the rules' goals"),
    ("no goals", lambda d: d.pop("goalValues"), "'goalValues' is missing"),
    ("wrong state", lambda d: d["states"].__setitem__(1, d["states"][0]), "State 1 is not the position"),
    ("names", lambda d: d.update(playerNamesFromHost=["only one"]), "'playerNamesFromHost' must list 2"),
]


@pytest.mark.parametrize("name,change,reason", CASES, ids=[c[0] for c in CASES])
def test_invalid_files_are_refused_with_their_reason(name, change, reason, played, uploader):
    original = refusal(played)
    if isinstance(change, bytes):
        payload = change
    elif callable(change):
        payload = with_changes(original, change)
    else:
        payload = change
    counts = (Match.objects.count(), Seat.objects.count(), Move.objects.count())
    response = upload(uploader, payload)
    assert response.status_code == 400
    errors = " ".join(response.context["form"].errors["file"])
    assert reason in errors, errors
    assert reason.split("'")[0] in response.content.decode()
    assert (Match.objects.count(), Seat.objects.count(), Move.objects.count()) == counts


def test_import_needs_a_login_and_csrf(played):
    data = refusal(played)
    response = upload(Client(), data)
    assert response.status_code == 302 and "/login/" in response["Location"]
    user, = make_players(1)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert upload(strict, data).status_code == 403
    page = strict.get("/history/import/")
    assert page.status_code == 200 and b"csrfmiddlewaretoken" in page.content


def test_the_export_carries_the_time_control_and_how_the_match_ended(uploader, fake_time):
    from games.match.clocks import TimeControl

    people = make_players(2)
    timed = start_match("quarto-misere", people, time_control=TimeControl(base=300, increment=3))
    timed = play_out(timed, people, max_moves=4)  # both have moved (else the flag calls it off); white to move
    fake_time.advance(400)
    game_services.clock_flag(match_id=timed.pk)
    data = export(Client(), timed)
    assert data["timeControl"] == "5+3" and data["endReason"] == "white ran out of time"
    assert data["playClock"] == data["startClock"] == 0  # a Fischer clock is not GGP's: in timeControl
    assert upload(uploader, data).status_code == 302  # a flag fall reads back as a resignation

    daily = start_match("quarto-misere", people, time_control=TimeControl(days=2))
    data = export(Client(), daily)
    assert data["timeControl"] == "d2" and data["startClock"] == data["playClock"] == 2 * 86_400
    assert "endReason" not in data

    per_move = start_match("quarto-misere", people, time_control=TimeControl(start=30, play=10))
    data = export(Client(), per_move)
    assert data["timeControl"] == "m30/10" and (data["startClock"], data["playClock"]) == (30, 10)


@pytest.mark.django_db(transaction=True)  # the GGP seat and the computer play after each commit
def test_the_export_says_which_seats_are_people_and_which_moves_were_replaced(settings):
    """A person, a GGP player that never answers (every turn of it played at random, as "no
    answer") and the computer: only the person is human, and each replaced move is named."""
    from games.match.clocks import TimeControl
    from games.match.settings import MatchSettings
    from games.models import ReplacedMove
    from tests.support.players import make_accounts

    settings.COMPUTER_WORKERS = "inline"
    settings.COMPUTER_ITERATIONS, settings.COMPUTER_SECONDS = 30, 1.0
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_INFO_SECONDS = settings.GGP_GRACE_SECONDS = 1
    alice, owner = make_accounts(2, "exported")
    mute = game_services.ggp_player_register(owner=owner, name="Mute", url="http://localhost:9/")
    match = game_services.match_create(
        user=alice, settings=MatchSettings("tictactoe-3player", time_control=TimeControl(start=10, play=2)),
        role="xplayer", ggp_players={"oplayer": mute.pk}, against_computer=True)
    play_out(match, [alice], max_moves=3)
    data = export(Client(), match)
    assert data["isPlayerHuman"] == [True, False, False]
    replaced = list(ReplacedMove.objects.filter(match=match).order_by("ply"))
    assert replaced and data["replacedMoves"] == [
        {"move": r.ply - 1, "role": "oplayer", "reason": "silent", "answer": r.answer} for r in replaced]
    assert "ConnectionRefused" in data["replacedMoves"][0]["answer"]  # nothing came, and why
    assert all(data["moves"][r.ply - 1][1] != "noop" for r in replaced)
    said = {(n, role): text for n, row in enumerate(data["errors"]) for role, text in zip(data["matchRoles"], row) if text}
    assert said == {(r.ply, "oplayer"): f"silent: {r.answer}" for r in replaced}  # ggp-base's errors, per state


def test_a_bot_account_is_not_human_and_an_import_keeps_what_its_file_said(played, uploader):
    match, people = played("tictactoe-x9", seed=3)
    type(people[1]).objects.filter(pk=people[1].pk).update(is_bot=True)
    data = export(Client(), match)
    assert data["isPlayerHuman"] == [True, False]
    assert upload(uploader, data).status_code == 302
    assert export(Client(), Match.objects.latest("pk"))["isPlayerHuman"] == [True, False]
    for n, said in enumerate(([True], "yes", [1, 0], None)):  # not one true or false per role: accepted, not kept
        changed = dict(data, isPlayerHuman=said, playerNamesFromHost=[f"Ada {n}", f"Bob {n}"])  # another import
        if said is None:
            del changed["isPlayerHuman"]
        assert upload(uploader, changed).status_code == 302
        assert "isPlayerHuman" not in export(Client(), Match.objects.latest("pk"))
