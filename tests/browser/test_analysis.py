"""Post-game analysis in real Chromium: asked for on the replay, its progress followed live, then
the graph, the marks (a blunder in a match built to contain one), the better move on a board
with the search's line from it, and the summary; the jumps to a chosen player's marked moves.
The server analyses with 200 search rounds a position (tests/browser/conftest.py)."""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services
from games.computer.analysis import evaluate_position
from games.match.analysis import match_positions
from games.models import Analysis
from games.rules import get_game
from tests.browser.helpers import outside_the_event_loop
from tests.support.analysis import another_move, blunder_line, live_and_its_uploaded_copy, play_line, store_analysis
from tests.support.players import make_players, play_out, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GAME = "nine-board-tictactoe"


@pytest.fixture
def blunder_match():
    """A finished nine-board match whose mover at ``blunder`` could have won at once and did not."""
    moves, blunder = blunder_line(GAME)

    def play():
        people = make_players(2, "Analysed")
        return play_line(start_match(GAME, people), people, moves)

    return outside_the_event_loop(play), moves, blunder


def graph_and_blunder_shown(page, moves, blunder):
    expect(page.get_by_test_id("analysis-graph")).to_be_visible()
    expect(page.locator("#analysis-graph polyline")).to_have_count(2)
    # Hovering a position says its move and each seat's expected score there; the y axis is labelled.
    expect(page.locator("#analysis-graph .analysis-graph__label")).to_have_text(["100", "50", "0"])
    expect(page.locator(f'#analysis-graph rect[data-ply="{blunder}"] title')).to_have_text(
        re.compile(rf"^Move {blunder} \([XO] [^)]+\): X \d+, O \d+$"))
    expect(page.get_by_test_id(f"mark-{blunder}")).to_have_text("blunder")
    blunderer = moves[blunder - 1][0]
    expect(page.get_by_test_id(f"blunders-{blunderer}")).not_to_have_text("0")
    expect(page.get_by_test_id("analysis-thresholds")).to_contain_text("blunder from 30")
    # A click on the graph at the blunder shows that position, the mark and the better move's board.
    page.locator(f'#analysis-graph rect[data-ply="{blunder}"]').click()
    expect(page.locator("#replay-board")).to_have_attribute("data-ply", str(blunder))
    note = page.get_by_test_id("analysis-move")
    expect(note).to_contain_text(re.compile(r"Blunder \(move \d+, lost \d+ points\)\. Better was "))
    expect(note.get_by_test_id("analysis-better").locator(".cell--last")).to_have_count(1)
    # The better move won at once, so the search's line from it is that move alone.
    expect(note.get_by_test_id("analysis-line")).to_have_text(re.compile(rf"^Best line: {blunder}\. [XO] [A-C][1-3] [a-c][1-3]\.$"))
    # Every position says each seat's expected score and the search's move there.
    expect(note.get_by_test_id("analysis-position")).to_contain_text(re.compile(r"Expected scores here: X \d+ · O \d+; the search's move: "))
    page.keyboard.press("End")
    expect(note.get_by_test_id("analysis-position")).to_have_text(re.compile(r"Expected scores here: .*\(the end\)\."))


def test_asking_for_an_analysis_shows_the_graph_and_marks_the_blunder(player_page, blunder_match):
    match, moves, blunder = blunder_match
    page = player_page("Annie")
    page.goto(f"/matches/{match.pk}/replay/")
    page.get_by_test_id("analysis-ask").click()
    # The server's analyser runs it; the page follows the progress and redraws once done.
    graph_and_blunder_shown(page, moves, blunder)


def test_next_marked_move_starts_from_the_first_as_soon_as_the_analysis_appears(player_page, blunder_match):
    """The replay stands at the last move when the analysis appears: "Next marked move" goes
    round to the first marked move at once instead of finding none later."""
    match, moves, blunder = blunder_match
    page = player_page("Annie")
    page.goto(f"/matches/{match.pk}/replay/")
    page.get_by_test_id("analysis-ask").click()
    expect(page.get_by_test_id(f"mark-{blunder}")).to_have_text("blunder")
    board = page.locator("#replay-board")
    expect(board).to_have_attribute("data-ply", str(len(moves)))
    first = page.locator('#replay-moves [data-testid^="mark-"]').first.get_attribute("data-testid")
    page.get_by_test_id("analysis-jump-next").click()
    expect(board).to_have_attribute("data-ply", first.removeprefix("mark-"))
    expect(page.get_by_test_id("analysis-jump-status")).to_have_text(re.compile(r"^Back to the first marked move"))


def test_the_progress_shows_live_while_the_analyser_works(player_page, blunder_match):
    """The test holds the job as a worker would, and stores the evaluations itself, step by step."""
    match, moves, blunder = blunder_match
    positions = match_positions(GAME, moves)
    evaluations = [evaluate_position(GAME, state, ply, 200, moves[ply][1] if ply < len(moves) else None)
                   for ply, state in enumerate(positions)]

    def hold():
        return Analysis.objects.create(match=match, status=Analysis.Status.RUNNING, rounds=200, claim="test",
                                       heartbeat=timezone.now(), positions=len(positions), evaluations=evaluations[:3])

    analysis = outside_the_event_loop(hold)
    page = player_page(None)
    page.goto(f"/matches/{match.pk}/replay/")
    total = len(positions)
    expect(page.get_by_test_id("analysis-count")).to_have_text(f"3 of {total}")
    expect(page.get_by_test_id("analysis-state")).to_have_text("Analysing:")
    for done in (8, total):
        assert outside_the_event_loop(lambda done=done: services.analysis_progress(
            analysis_id=analysis.pk, claim="test", evaluations=evaluations[:done]))
        if done < total:
            expect(page.get_by_test_id("analysis-count")).to_have_text(f"{done} of {total}")
            expect(page.locator("#analysis-progress")).to_have_attribute("value", str(done))
    graph_and_blunder_shown(page, moves, blunder)


def test_a_better_quarto_move_is_a_readable_board_without_a_play_prompt(page_of):
    """At desktop width the better move's Quarto board keeps its pool under the board (beside it,
    the board was squeezed to a column and the pieces spilled out), and, read-only, no prompt."""
    quarto = "quarto-misere"

    def finished_with_a_mistake():
        people = make_players(2, "Quarto")
        match = play_out(start_match(quarto, people), people, seed=3)
        moves = list(match.moves.values_list("role", "action"))
        game = get_game(quarto)
        positions = match_positions(quarto, moves)
        legal = [game.legal_actions(game.state_from_json(position)) for position in positions]
        # A select from the middle of the match is marked a mistake; every other move was the search's own.
        ply = next(n for n in range(8, len(moves)) if moves[n][1].startswith("(select")
                   and len(legal[n]) > 1)
        better = next(a for a in legal[ply] if a != moves[ply][1])
        even = {role: 0.5 for role in game.roles}
        evaluations = [{"scores": even, "best": moves[n][1] if n < len(moves) else None} for n in range(len(positions))]
        evaluations[ply] = {"scores": even, "best": better}
        evaluations[ply + 1] = {"scores": {**even, moves[ply][0]: 0.25}, "best": moves[ply + 1][1]}
        Analysis.objects.create(match=match, status=Analysis.Status.DONE, rounds=200, positions=len(positions),
                                evaluations=evaluations, finished_at=timezone.now())
        return match, ply + 1

    match, ply = outside_the_event_loop(finished_with_a_mistake)
    page = page_of(None)
    page.goto(f"/matches/{match.pk}/replay/?ply={ply}")
    note = page.get_by_test_id("analysis-move")
    expect(note).to_contain_text(re.compile(r"Mistake \(move \d+, lost 25 points\)\. Better was select "))
    board = note.get_by_test_id("analysis-better")
    cells = board.locator(".four-grid .cell")
    expect(cells).to_have_count(16)
    for cell in (cells.first, cells.last):
        box = cell.bounding_box()
        assert box["width"] >= 32 and box["height"] >= 32, box
    pool = board.locator(".quarto-pool").bounding_box()
    grid = board.locator(".four-grid").bounding_box()
    assert pool["y"] >= grid["y"] + grid["height"], (pool, grid)  # under the board, not over its pieces
    expect(board.locator(".board-hint")).to_have_count(0)
    expect(note).not_to_contain_text("Place the selected piece")


def test_the_marked_move_buttons_and_keys_go_to_a_chosen_players_marked_moves(page_of):
    """A finished three-player match with made-up marks: x's second and third moves, o's second,
    z's second and third (a blunder each, with the better move as the search's line)."""
    game_slug = "tictactoe-3player"

    def marked_match():
        people = make_players(3, "Jumper")
        match = play_out(start_match(game_slug, people), people, seed=3)
        movers = list(match.moves.values_list("role", flat=True))
        x, o, z = get_game(game_slug).roles
        plies = {role: [ply for ply, mover in enumerate(movers, start=1) if mover == role] for role in (x, o, z)}
        marked = {x: plies[x][1:3], o: plies[o][1:2], z: plies[z][1:3]}
        assert all(len(marked[role]) == count for role, count in ((x, 2), (o, 1), (z, 2)))
        store_analysis(match, {ply: [another_move(match, ply)] for mine in marked.values() for ply in mine})
        return match, marked, {seat.role: str(seat.player) for seat in match.seats.all()}

    match, marked, names = outside_the_event_loop(marked_match)
    _, o, z = get_game(game_slug).roles
    everyone = sorted(ply for mine in marked.values() for ply in mine)
    page = page_of(None)
    page.goto(f"/matches/{match.pk}/replay/?ply=0")
    board = page.locator("#replay-board")
    status = page.get_by_test_id("analysis-jump-status")
    who = page.get_by_test_id("analysis-jump-who")
    later, earlier = page.get_by_test_id("analysis-jump-next"), page.get_by_test_id("analysis-jump-prev")
    # Every player's marked moves in turn, then one back: the note says what was marked there.
    for ply in everyone[:3]:
        later.click()
        expect(board).to_have_attribute("data-ply", str(ply))
    earlier.click()
    expect(board).to_have_attribute("data-ply", str(everyone[1]))
    expect(page.get_by_test_id("analysis-move")).to_contain_text(
        f"Blunder (move {everyone[1]}, lost 40 points). Better was ")
    expect(page.get_by_test_id("analysis-line")).to_have_text(re.compile(rf"^Best line: {everyone[1]}\. [XOZ] [a-e][1-5]\.$"))
    # Z's alone, from where the replay stands; past the last one it goes round to the first (as
    # lichess's next mistake does) and says so.
    who.select_option(z)
    later.click()
    expect(board).to_have_attribute("data-ply", str(next(ply for ply in marked[z] if ply > everyone[1])))
    later.click()
    expect(board).to_have_attribute("data-ply", str(marked[z][-1]))
    later.click()
    expect(board).to_have_attribute("data-ply", str(marked[z][0]))
    expect(status).to_have_text(f"Back to the first marked move of Z {names[z]}.")
    # Shift with an arrow key does the same, wherever the focus is but in a field.
    page.keyboard.press("Shift+ArrowRight")
    expect(board).to_have_attribute("data-ply", str(marked[z][1]))
    expect(status).to_have_text("")
    page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("Shift+ArrowLeft")
    expect(board).to_have_attribute("data-ply", str(marked[z][-1]))
    expect(status).to_have_text(f"Back to the last marked move of Z {names[z]}.")
    # O's only one, found backwards from the end; the plain arrow keys still step one move.
    who.select_option(o)
    page.locator('[data-step="last"]').click()
    earlier.click()
    expect(board).to_have_attribute("data-ply", str(marked[o][0]))
    page.keyboard.press("ArrowRight")
    expect(board).to_have_attribute("data-ply", str(marked[o][0] + 1))
    # From the player's select beside the buttons too, where a choice made leaves the focus (a
    # select does nothing with Shift and an arrow); its own plain arrow keys still change the player.
    who.focus()
    page.keyboard.press("Shift+ArrowLeft")
    expect(board).to_have_attribute("data-ply", str(marked[o][0]))
    expect(who).to_have_value(o)


def test_an_analysis_followed_live_is_withheld_once_done_while_a_live_match_stands_at_its_position(player_page):
    """An imported copy of a live match, analysed while that match stood elsewhere: once done, the
    page that followed the progress says why it shows nothing (fair play), instead of the graph."""
    players, live, copy = outside_the_event_loop(live_and_its_uploaded_copy)
    roles = get_game(copy.game).roles
    even = [{"scores": {role: 0.5 for role in roles}, "best": None, "line": []}] * (copy.plies + 1)
    analysis = outside_the_event_loop(lambda: Analysis.objects.create(
        match=copy, status=Analysis.Status.RUNNING, rounds=200, claim="test", heartbeat=timezone.now(),
        positions=len(even), evaluations=[]))
    page = player_page(None)
    page.goto(f"/matches/{copy.pk}/replay/")
    expect(page.get_by_test_id("analysis-count")).to_have_text(f"0 of {len(even)}")
    assert outside_the_event_loop(lambda: services.analysis_progress(analysis_id=analysis.pk, claim="test",
                                                                      evaluations=even))
    expect(page.get_by_test_id("analysis-withheld")).to_contain_text("for fair play")
    expect(page.get_by_test_id("analysis-graph")).to_have_count(0)
