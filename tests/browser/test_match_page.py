"""The lobby and match pages around the game itself: live lists, private matches, a dropped
connection, refused actions, resigning and rematches, phone width."""

import re

import pytest
from playwright.sync_api import expect

from games import services
from tests.browser.conftest import match_id_of
from tests.browser.helpers import (
    click_turns,
    create_match,
    join_match,
    outside_the_event_loop,
    record_notifications,
    wait_version,
)
from tests.support.players import make_players, play_first_moves, play_out, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def started(player_page, game="nine-board-tictactoe", roles=("xPlayer", "oPlayer")):
    ada, bob = player_page("Ada"), player_page("Bob")
    match_id = create_match(ada, game, seat=roles[0])
    join_match(bob, f"/matches/{match_id}/", roles[1])
    wait_version(ada, 0)
    expect(ada.locator("#board.board-holder--my-turn")).to_have_count(1)
    return ada, bob, match_id


def test_lobby_lists_follow_the_server_and_a_private_match_opens_by_its_link(player_page):
    ada, bob = player_page("Ada"), player_page("Bob")
    ada.get_by_label("Game", exact=True).select_option("quarto-misere")
    expect(ada.get_by_label("Your seat").locator("option")).to_have_text(
        ["Random seat", "White (first to move)", "Black (second to move)"])
    expect(ada.get_by_label("Variant").locator("option")).to_have_text(
        ["Standard rules", "Classic order: you choose your opponent's piece"])
    ada.get_by_label("Game", exact=True).select_option("tictactoe-x9")
    expect(ada.get_by_label("Variant")).to_be_hidden()  # a game with no variant
    ada.get_by_label("Game", exact=True).select_option("tictactoe-3player")
    ada.get_by_label("Variant").select_option("tictactoe-3player-torus")
    expect(ada.locator("#game-summary")).to_contain_text("edges wrap around")
    ada.get_by_label("Private").check()
    ada.get_by_role("button", name="Create match").click()
    expect(ada.locator("h1")).to_contain_text("Three-Player Tic-Tac-Toe on a torus")
    ada.goto("/")

    private_id = create_match(ada, "tictactoe-3player", private=True)
    invite = ada.locator("#invite-url").input_value()
    assert f"/matches/{private_id}/?invite=" in invite
    ada.context.grant_permissions(["clipboard-read", "clipboard-write"])
    ada.get_by_role("button", name="Copy").click()
    expect(ada.locator("#copy-status")).to_have_text("Link copied.")
    assert ada.evaluate("navigator.clipboard.readText()") == invite
    ada2 = player_page("Ada again")
    public_id = create_match(ada2, "quarto-misere", seat="white")

    open_list = bob.locator("#open-matches")  # Bob has had the lobby open all along
    expect(open_list.locator(f'[data-match-id="{public_id}"]')).to_contain_text("Misère Quarto")
    expect(open_list.locator(f'[data-match-id="{private_id}"]')).to_have_count(0)

    assert bob.goto(f"/matches/{private_id}/").status == 404
    bob.goto(invite)
    expect(bob.locator("#status-line")).to_contain_text("Waiting for players: 2 free seats")
    bob.get_by_role("button", name=re.compile(r"^Join as")).first.click()  # Ada's seat was random
    expect(bob.locator("#seats")).to_contain_text("Bob (you)")
    expect(ada.locator("#status-line")).to_contain_text("Waiting for players: 1 free seat.")
    expect(ada.locator("#seats")).to_contain_text("Bob")

    bob.goto("/")
    open_list.locator(f'[data-match-id="{public_id}"]').get_by_role("button", name="Join").click()
    assert match_id_of(bob) == public_id
    expect(ada2.locator("#status-line")).to_contain_text("Your turn")
    bob.goto("/")
    expect(bob.locator(f'#live-matches [data-match-id="{public_id}"]')).to_be_visible()
    expect(bob.locator("#my-matches")).to_contain_text(f"#{private_id}")


def test_a_private_match_waiting_for_players_points_to_its_invite_link(player_page):
    """The creator of a private match waiting for players is told to send the invite link, not
    that the lobby lists the match (it never lists a private one); a public match's creator is
    still told the lobby lists it."""
    ada = player_page("Ada")
    create_match(ada, "quarto-misere", private=True)
    status = ada.locator("#status-line")
    expect(status).to_have_text("Waiting for players: 1 free seat. Send the invite link to the people you want "
                                "to play with: you may wait on any page of the site.")
    expect(ada.locator("#invite")).to_contain_text("Invite")
    create_match(ada, "quarto-misere")
    expect(status).to_contain_text("the lobby lists the match while you wait here")


def test_a_dropped_connection_shows_a_banner_then_resyncs(player_page):
    ada, bob, match_id = started(player_page)
    watcher = player_page(None)
    watcher.goto(f"/matches/{match_id}/")
    wait_version(watcher, 0)

    # The browser reports the network gone: the page drops its socket, and every reconnect
    # fails until the network is back.
    watcher.context.set_offline(True)
    expect(watcher.locator("#connection")).to_contain_text("Connection lost")

    ada.locator("#board [data-action]:not([disabled])").first.click()
    wait_version(bob, 1)
    expect(watcher.locator("#board")).to_have_attribute("data-version", "0")
    expect(watcher.locator("#connection")).to_contain_text("Connection lost")

    watcher.context.set_offline(False)
    expect(watcher.locator("#connection")).to_contain_text("Reconnected")
    wait_version(watcher, 1)
    expect(watcher.locator("#moves li")).to_have_count(1)


def test_a_refused_action_shows_the_servers_message(player_page):
    ada, bob, _ = started(player_page)
    bob.evaluate('window.boardhall.socket.sendAction("(play 1 1 1 1 o)")')
    expect(bob.locator("#action-error")).to_contain_text("It is X's turn, not yours.")

    ada.evaluate('window.boardhall.socket.send({type: "action", action: "(play 1 1 1 1 x)", version: 5})')
    expect(ada.locator("#action-error")).to_contain_text("The match has moved on")
    ada.evaluate('window.boardhall.socket.sendAction("(play 1 1 1 1 o)")')
    expect(ada.locator("#action-error")).to_be_visible()
    expect(ada.locator("#action-error")).not_to_contain_text("moved on")
    wait_version(ada, 0)

    ada.locator("#board [data-action]:not([disabled])").first.click()
    wait_version(ada, 1)
    expect(ada.locator("#action-error")).to_be_hidden()


def test_your_matches_on_the_home_page_follow_the_game(player_page):
    """As lichess's list of games in play: whose turn it is, and a match ending, show without a
    reload."""
    ada, bob, match_id = started(player_page)
    bob.goto("/")
    row = bob.locator(f'#my-matches [data-match-id="{match_id}"]')
    expect(row.locator(".tag--active")).to_have_text("in play")  # Ada plays x and moves first
    record_notifications(bob)  # his tab in the background, notifications allowed
    ada.locator('#board [data-action="(play 2 2 2 2 x)"]').click()
    expect(row.locator(".tag--turn")).to_have_text("your turn")
    expect(bob).to_have_title(re.compile(r"^\(1\) "))  # the turns waiting, as lichess counts them
    bob.wait_for_function("() => window.shown.length > 0")
    assert bob.evaluate("window.shown") == [["Boardhall: your turn", f"Nine-Board Tic-Tac-Toe #{match_id} against Ada"]]
    ada.get_by_role("button", name="Abort").click()  # Bob has not moved: abort is the way out
    expect(row).to_have_count(0)
    expect(bob.locator("#mine-empty")).to_be_visible()
    expect(bob.locator("#my-matches")).to_be_hidden()
    expect(bob).not_to_have_title(re.compile(r"^\("))


def test_moves_played_at_random_for_a_seat_that_left_say_so(player_page):
    """Three players: o resigns after x's second move, and the rules play o's turns at random;
    the move list and the replay mark those moves, and only those."""
    def three_player_match_with_o_out():
        x, o, z = make_players(3, "Trio")
        match = play_first_moves(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
        match = play_out(match, [x, o, z], seed=1, max_moves=1)  # x's second move
        services.match_resign(match_id=match.pk, user=o)  # o's own turn: played at random at once
        match.refresh_from_db()
        return play_out(match, [x, o, z], seed=1, max_moves=4)

    match = outside_the_event_loop(three_player_match_with_o_out)
    moves = list(match.moves.values_list("ply", "role"))
    marked = [ply for ply, role in moves if role == "oplayer" and ply > 4]
    assert marked and len(moves) > len(marked) + 1
    page = player_page("Watcher")
    for address, steps in [(f"/matches/{match.pk}/", "#moves li"), (f"/matches/{match.pk}/replay/", "#replay-moves li")]:
        page.goto(address)
        for ply, role in moves:
            line = page.locator(steps).filter(has=page.locator(f'[data-ply="{ply}"]'))
            if ply in marked:
                expect(line).to_contain_text("(at random)")
            else:
                expect(line).not_to_contain_text("(at random)")
    # the replay's status line, which a screen reader hears at each step, says so too
    status = page.locator("#replay-status")
    for ply in (marked[0], marked[0] - 1):
        page.locator(f'#replay-moves button[data-ply="{ply}"]').click()
        expect(status).to_contain_text(f"Move {ply} of {len(moves)}: ")
        if ply in marked:
            expect(status).to_contain_text("(at random)")
        else:
            expect(status).not_to_contain_text("(at random)")


def test_a_hint_that_tells_the_mover_what_to_do_is_shown_to_the_mover_only(page_of):
    """Misère Quarto, White has chosen a piece and places it: White reads what to do; Black, a
    spectator and the replay read what happens, by the mover's name (they read "Place the
    selected piece on an empty cell." as if it were theirs to do)."""
    def white_to_place():
        ada, bob = make_players(2, "Hint")
        match = start_match("quarto-misere", [ada, bob])
        services.move_submit(match_id=match.pk, user=ada, action="(select p0000)", version=0)
        return ada, bob, match.pk

    ada, bob, match_id = outside_the_event_loop(white_to_place)
    told = "Place the selected piece on an empty cell."
    described = "White places the selected piece on an empty cell."
    pages = []
    for user, address, hint in [(ada, f"/matches/{match_id}/", told), (bob, f"/matches/{match_id}/", described),
                                (None, f"/matches/{match_id}/", described),
                                (None, f"/matches/{match_id}/replay/?ply=1", described)]:
        page = page_of(user)
        page.goto(address)
        expect(page.locator(".board-hint")).to_have_text(hint)
        pages.append(page)
    # White's connection drops: the board takes no click until it is back, and it is still her turn
    pages[0].context.set_offline(True)
    expect(pages[0].locator("#connection")).to_contain_text("Connection lost")
    expect(pages[0].locator("#board.board-holder--my-turn")).to_have_count(0)
    expect(pages[0].locator(".board-hint")).to_have_text(told)


def test_resign_then_rematch(player_page):
    ada, bob, match_id = started(player_page, "quarto-misere", ("white", "black"))
    expect(ada.get_by_role("button", name="Resign")).to_have_count(0)  # before everyone moved: Abort only
    click_turns([ada, ada, bob])  # Ada chooses and places a piece, Bob chooses one: both have begun
    ada.get_by_role("button", name="Resign").click()
    ada.get_by_role("button", name="Keep playing").click()
    expect(ada.locator("#board")).to_have_attribute("data-status", "active")
    ada.get_by_role("button", name="Resign").click()
    ada.get_by_role("button", name="Yes, resign").click()
    for page in (ada, bob):
        expect(page.locator("#status-line")).to_contain_text("Bob won: Ada resigned")
        expect(page.locator("#result-text")).to_have_text("Bob won: Ada resigned.")

    bob.get_by_role("button", name="Offer a rematch").click()
    expect(bob.locator("#status-line")).to_contain_text("Waiting for players")
    rematch_id = match_id_of(bob)
    assert rematch_id != match_id
    expect(ada.locator("#controls")).to_contain_text("Bob offers a rematch.")
    ada.get_by_role("button", name="Accept the rematch").click()
    expect(ada).to_have_url(re.compile(f"/matches/{rematch_id}/"))  # from one match page to another
    expect(ada.locator("#seats")).to_contain_text("Ada (you)")
    for page in (ada, bob):
        expect(page.locator("#board")).to_have_attribute("data-status", "active")


def test_players_chat_and_spectators_read(player_page):
    ada, bob, match_id = started(player_page)
    watcher = player_page("Watcher")
    watcher.goto(f"/matches/{match_id}/")
    expect(watcher.locator("#chat-readonly")).to_have_text("Only the players write here.")
    expect(watcher.locator("#chat-form")).to_be_hidden()
    ada.get_by_label("Message to the other players").fill("<b>good luck</b>")
    ada.get_by_label("Message to the other players").press("Enter")
    for page in (ada, bob, watcher):
        expect(page.locator("#chat-lines li")).to_have_text(["Ada <b>good luck</b>"])  # text, never markup
    expect(ada.get_by_label("Message to the other players")).to_have_value("")
    bob.get_by_label("Message to the other players").fill("thanks, you too")
    bob.get_by_role("button", name="Send").click()
    watcher.reload()  # a page opened later gets the lines so far
    expect(watcher.locator("#chat-lines li")).to_have_text(["Ada <b>good luck</b>", "Bob thanks, you too"])


def both_begin(ada, bob) -> None:
    """Ada, Bob, Ada: both have made their first move (before, leaving aborts the match), and it
    is Bob's turn."""
    for version, (page, action) in enumerate([(ada, "(play 2 2 2 2 x)"), (bob, "(play 2 2 1 1 o)"),
                                             (ada, "(play 1 1 2 2 x)")]):
        wait_version(page, version)
        page.locator(f'#board [data-action="{action}"]').click()
    wait_version(bob, 3)


def test_the_win_can_be_claimed_from_a_player_who_left(player_page):
    ada, bob, match_id = started(player_page)
    both_begin(ada, bob)
    claim = ada.locator("#claim")
    expect(claim).to_be_hidden()
    bob.goto("/")  # Bob leaves the match page on his turn
    expect(ada.locator('.seat[data-role="oPlayer"] .presence')).to_have_text("offline")
    expect(claim).to_contain_text("Bob has left the match. If they are not back within")
    bob.goto(f"/matches/{match_id}/")  # ... and comes back in time
    expect(claim).to_be_hidden()
    bob.goto("/")
    expect(claim.get_by_role("button", name="Claim the win")).to_be_visible()
    expect(claim.get_by_role("button", name="Call it a draw")).to_be_visible()
    expect(bob.locator("#claim")).to_have_count(0)
    claim.get_by_role("button", name="Claim the win").click()
    expect(ada.locator("#result-text")).to_contain_text("Ada won: Bob left the match")
    expect(claim).to_be_hidden()
    expect(ada.locator('.seat[data-role="oPlayer"] .seat__role')).to_contain_text("away, claimed against")
    expect(ada.locator('.seat[data-role="oPlayer"] .seat__role')).not_to_contain_text("resigned")


def test_a_match_can_be_called_a_draw_when_a_player_left(player_page):
    """As on lichess: instead of claiming the win from a player who left, call it a draw."""
    ada, bob, match_id = started(player_page)
    both_begin(ada, bob)
    bob.goto("/")
    claim = ada.locator("#claim")
    claim.get_by_role("button", name="Call it a draw").click()
    expect(ada.locator("#result-text")).to_contain_text("A draw: Bob left the match and it was called a draw")
    expect(claim).to_be_hidden()
    bob.goto(f"/matches/{match_id}/")
    expect(bob.locator("#result-text")).to_contain_text("A draw")


@pytest.mark.parametrize("game", ["nine-board-tictactoe", "tictactoe-3player", "quarto-misere"])
def test_boards_fit_a_phone(player_page, game):
    phone = player_page("Ada", viewport={"width": 360, "height": 740})
    expect(phone.locator("#variant-field")).to_be_hidden()  # the form's script has run (nine-board: no variant)
    panel = phone.locator(".lobby__start").bounding_box()
    for field in phone.locator("#create-form select:visible, #create-form button:visible").all():
        box = field.bounding_box()
        assert box["x"] + box["width"] <= panel["x"] + panel["width"], "a lobby field sticks out of its panel"
    create_match(phone, game)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    box = phone.locator("#board .board").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    cell = phone.locator("#board .cell").first.bounding_box()
    assert cell["width"] >= 24  # still a usable tap target
