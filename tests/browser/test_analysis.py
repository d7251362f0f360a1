"""Post-game analysis in real Chromium: asked for on the replay, its progress followed live, then
the graph, the marks (a blunder in a match built to contain one), the better move on a board,
and the summary. The server analyses with 200 search rounds a position (tests/browser/conftest.py)."""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services
from games.computer.analysis import evaluate_position, match_positions
from games.models import Analysis
from games.rules import get_game
from tests.browser.helpers import outside_the_event_loop
from tests.support.analysis import blunder_line, play_line
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
