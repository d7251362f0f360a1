"""Whole games by clicking, in real Chromium: two (or three) players and a spectator who sees
every move and the result."""

import random

import pytest
from playwright.sync_api import expect

from games.match.labels import result_sentence
from games.models import Match
from tests.browser.conftest import match_id_of
from tests.browser.helpers import (
    PLAYABLE,
    create_match,
    join_match,
    play_to_end,
    playable,
    screenshot,
    wait_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT_AT = 15  # mid-game; in Quarto, a piece is waiting to be placed


def stroke(page, selector: str) -> str:
    """The colour a mark is drawn in."""
    return page.locator(selector).first.evaluate("mark => getComputedStyle(mark).stroke")


@pytest.mark.parametrize("game,roles,shot", [
    pytest.param("nine-board-tictactoe", ["xPlayer", "oPlayer"], "nine-board", id="nine-board"),
    pytest.param("tictactoe-x9", ["xplayer", "oplayer"], None, id="x9"),
    pytest.param("nine-board-tictactoe-pie", ["red", "blue"], "nine-board-pie", id="pie"),
    pytest.param("tictactoe-3player", ["xplayer", "oplayer", "zplayer"], "three-player", id="three-player"),
    pytest.param("quarto-misere", ["white", "black"], "quarto", id="quarto"),
])
def test_a_whole_game_with_a_spectator(player_page, game, roles, shot):
    names = ["Ada", "Bob", "Cy"][: len(roles)]
    players = [player_page(name) for name in names]
    match_id = create_match(players[0], game, seat=roles[0])
    url = f"/matches/{match_id}/"
    for page, role in zip(players[1:], roles[1:]):
        join_match(page, url, role)
    watcher = player_page("Watcher")
    watcher.goto(url)
    expect(watcher.locator("#spectators")).to_have_text("1 watching")
    for role, name in zip(roles, names):
        expect(watcher.locator(f'.seat[data-role="{role}"]')).to_contain_text(name)
        expect(watcher.locator(f'.seat[data-role="{role}"] .presence')).to_have_text("online")
    expect(watcher.locator("#status-line")).to_contain_text("Ada to")
    swapped, colours = [], {}

    def on_turn(version, mover):
        if version == 0 and game == "nine-board-tictactoe":
            # keyboard play: focus a playable cell and press Enter
            mover.locator('#board [data-action="(play 2 2 2 2 x)"]').focus()
            mover.keyboard.press("Enter")
            return True
        if version == 1 and game == "nine-board-tictactoe-pie":
            expect(watcher.locator('.seat[data-role="blue"]')).to_contain_text("Blue, plays o")
            colours.update(red=stroke(watcher, '.seat[data-role="red"] .mark'),
                           blue=stroke(watcher, '.seat[data-role="blue"] .mark'))
            mover.get_by_role("button", name="Swap sides").click()
            swapped.append(True)
            return True
        if version == 2 and game == "nine-board-tictactoe-pie":
            expect(watcher.locator('.seat[data-role="blue"]')).to_contain_text("Blue, plays x")
            expect(watcher.locator('.seat[data-role="red"]')).to_contain_text("Red, plays o")
            # Each side's marks keep its colour: red's first x is blue's now, and drawn blue.
            assert stroke(watcher, '#board [data-content="x"] .mark') == colours["blue"] != colours["red"]
            assert stroke(watcher, '.seat[data-role="blue"] .mark') == colours["blue"]
            assert stroke(watcher, '.seat[data-role="red"] .mark') == colours["red"]
        if version == SCREENSHOT_AT and shot:
            screenshot(mover, shot)
        return False

    final = play_to_end(players, watcher, random.Random(game), on_turn=on_turn)
    assert final >= 5 and (swapped or game != "nine-board-tictactoe-pie")
    for page in [*players, watcher]:
        expect(page.locator("#status-line")).to_contain_text("Game over")
        expect(page.locator("#result")).to_be_visible()
    match = Match.objects.get(pk=match_id)
    assert match.status == "finished" and match.version == final
    names = dict(zip(roles, names))
    expect(watcher.locator("#result-text")).to_contain_text(result_sentence(match.result, names))
    expect(watcher.locator("#board .cell--line")).to_have_count(len(match.result["line"]))
    expect(watcher.locator("#board [data-action]")).to_have_count(0)
    expect(watcher.get_by_role("link", name="Replay")).to_have_attribute("href", f"{url}replay/")
    wait_version(watcher, final)


def test_a_whole_game_against_the_computer(player_page):
    """Three-player tic-tac-toe from the middle seat: the two computer seats answer by themselves."""
    ada = player_page("Ada")
    ada.goto("/")
    form = ada.locator("#create-form")
    form.get_by_label("Game").select_option("tictactoe-3player")
    form.get_by_label("Your seat").select_option("oplayer")
    expect(form.get_by_label("Its strength")).to_be_disabled()
    form.get_by_label("The computer: start at once").check()
    strength = form.get_by_label("Its strength")
    expect(strength.locator("option")).to_have_count(4)
    strength.select_option("1")
    expect(strength.locator("option:checked")).to_have_text("Easy")  # and what the level does, below it
    expect(form.locator("#id_computer_level-description")).to_contain_text("Blunders often")
    form.get_by_role("button", name="Create match").click()
    match_id = match_id_of(ada)
    names = {"xplayer": "Computer (easy)", "oplayer": "Ada", "zplayer": "Computer 2 (easy)"}
    for role in ("xplayer", "zplayer"):
        expect(ada.locator(f'.seat[data-role="{role}"]')).to_contain_text(names[role])
        # always there: never "offline", and nobody to chat with
        expect(ada.locator(f'.seat[data-role="{role}"] .presence')).to_have_text("computer")
    expect(ada.locator("#chat")).to_be_hidden()
    rng = random.Random(7)
    my_moves = 0
    while True:
        # Wait until the computer has played up to Ada's turn, or the game is over.
        ada.wait_for_function("""() => { const b = document.querySelector('#board');
            return b.dataset.status !== 'active' || b.classList.contains('board-holder--my-turn'); }""")
        board = ada.locator("#board")
        if board.get_attribute("data-status") != "active":
            break
        version = int(board.get_attribute("data-version"))
        action = rng.choice(playable(ada))
        ada.locator(f'{PLAYABLE}[data-action="{action}"]').click()
        expect(board).not_to_have_attribute("data-version", str(version))
        my_moves += 1
    match = Match.objects.get(pk=match_id)
    assert match.status == "finished" and my_moves >= 2
    roles = set(match.moves.values_list("role", flat=True))
    assert roles == {"xplayer", "oplayer", "zplayer"}
    expect(ada.locator("#moves li")).to_have_count(match.version)
    expect(ada.locator("#result-text")).to_contain_text(result_sentence(match.result, names))
    expect(ada.locator("#result-text")).not_to_contain_text("player")
