"""The computer's search (games/computer/search.py, engine.py): pure, no database or channel
layer, so bin/test runs it in stage 1 only (the ``pure`` marker)."""

import dataclasses
import random
import time

import pytest

from games.computer import engine, search
from games.computer.search import LEVELS, STRONGEST, choose_action, solve
from games.rules import GAMES, get_game
from tests.support.rules import tree_fits

pytestmark = pytest.mark.pure
# The expert's search in pure Python: in misère Quarto with a clock the expert searches compiled
# (``compiled``; tests/games/computer/test_quarto_compiled.py), and these tests are of the pure search.
PURE_EXPERT = dataclasses.replace(LEVELS[3], compiled=False)


@pytest.mark.parametrize("slug", [info.slug for info in GAMES])
def test_the_search_returns_a_legal_action_and_repeats_itself_for_a_seed(slug):
    game = get_game(slug)
    state = game.initial_state()
    first = choose_action(game, state, rng=random.Random(5), iterations=150)
    assert first in game.legal_actions(state)
    assert choose_action(game, state, rng=random.Random(5), iterations=150) == first


def test_it_takes_a_win_in_one():
    game = get_game("nine-board-tictactoe")
    # x has two of the centre board's diagonal; o was sent to board (3, 3), x is sent to (2, 2) next.
    state = game.replay(["(play 2 2 1 1 x)", "(play 1 1 2 2 o)", "(play 2 2 2 2 x)", "(play 2 2 1 2 o)",
                         "(play 1 2 3 3 x)", "(play 3 3 2 2 o)"])
    assert choose_action(game, state, rng=random.Random(0), iterations=300) == "(play 2 2 3 3 x)"


def test_it_avoids_completing_a_line_in_misere_quarto():
    game = get_game("quarto-misere")
    # Three tall pieces on row 1; white must now place a tall piece it selected itself:
    # anywhere but (4, 1), where it would complete a line and lose.
    state = game.replay(["(select p1000)", "(place p1000 1 1)", "(select p1001)", "(place p1001 2 1)",
                         "(select p1010)", "(place p1010 3 1)", "(select p0000)", "(place p0000 1 3)",
                         "(select p1111)"])
    action = choose_action(game, state, rng=random.Random(3), iterations=800)
    assert action.startswith("(place p1111") and action != "(place p1111 4 1)"


def test_three_players_each_maximise_their_own_score():
    game = get_game("tictactoe-3player")
    # z has three in a row on row 3 with both ends open: z must complete the four at once.
    state = game.replay(["(mark 1 1)", "(mark 1 5)", "(mark 3 2)", "(mark 5 1)", "(mark 5 5)", "(mark 3 3)",
                         "(mark 2 1)", "(mark 2 5)", "(mark 3 4)"])
    assert game.to_move(state) == "xplayer"
    state = game.play(state, "xplayer", "(mark 4 4)")
    state = game.play(state, "oplayer", "(mark 4 5)")
    action = choose_action(game, state, rng=random.Random(2), iterations=400)
    assert action in {"(mark 3 1)", "(mark 3 5)"}


def test_there_is_nothing_to_choose_when_the_game_is_over():
    game = get_game("tictactoe-3player")
    state = game.replay(["(mark 1 1)", "(mark 2 1)", "(mark 3 1)", "(mark 1 2)", "(mark 2 2)", "(mark 3 2)",
                         "(mark 1 3)", "(mark 2 3)", "(mark 3 3)", "(mark 1 4)"])
    assert game.is_terminal(state)
    with pytest.raises(ValueError):
        choose_action(game, state, rng=random.Random(0))


STRONG = LEVELS[2]  # the first level with tactical playouts and the solver


def forced_win(game, state, role, plies):
    """Whether ``role`` wins within ``plies`` plies whatever the other roles do (brute force)."""
    if game.is_terminal(state):
        return game.goals(state)[role] == 100
    if plies == 0:
        return False
    mover = game.to_move(state)
    after = [game.play(state, mover, action) for action in game.legal_actions(state)]
    test = any if mover == role else all
    return test(forced_win(game, s, role, plies - 1) for s in after)


def brute_force(game, state, worth=lambda goals: goals):
    """Every role's goals (or what ``worth`` makes of them) under best play, each mover taking
    the first best move for itself: plain recursion, no table, no cut-off (small positions only)."""
    mover = game.to_move(state)
    if mover is None:
        return worth(tuple(game.goals(state)[role] for role in game.roles))
    me, best = game.roles.index(mover), None
    for action in game.legal_actions(state):
        value = brute_force(game, game.play(state, mover, action), worth)
        if best is None or value[me] > best[me]:
            best = value
    return best


# Positions with a forced win that is not a win in one, found over random games.
FORCED_WINS = {
    "nine-board-tictactoe": (3, [
        "(play 1 2 1 3 x)", "(play 1 3 1 3 o)", "(play 1 3 2 1 x)", "(play 2 1 1 1 o)", "(play 1 1 1 2 x)",
        "(play 1 2 3 2 o)", "(play 3 2 3 3 x)", "(play 3 3 2 2 o)", "(play 2 2 3 3 x)", "(play 3 3 2 1 o)",
        "(play 2 1 2 2 x)", "(play 2 2 3 1 o)", "(play 3 1 2 2 x)", "(play 2 2 2 1 o)", "(play 2 1 2 3 x)",
        "(play 2 3 2 3 o)", "(play 2 3 1 2 x)", "(play 1 2 2 1 o)", "(play 2 1 3 2 x)", "(play 3 2 1 2 o)",
        "(play 1 2 2 3 x)", "(play 2 3 3 1 o)", "(play 3 1 3 1 x)", "(play 3 1 3 3 o)", "(play 3 3 1 2 x)",
        "(play 1 2 1 2 o)", "(play 1 2 1 1 x)", "(play 1 1 2 3 o)", "(play 2 3 1 1 x)", "(play 1 1 3 2 o)",
        "(play 3 2 1 3 x)", "(play 1 3 2 2 o)", "(play 2 2 1 2 x)", "(play 1 2 3 1 o)", "(play 3 1 2 1 x)",
        "(play 2 1 1 2 o)", "(play 1 2 2 2 x)", "(play 2 2 1 3 o)", "(play 1 3 3 3 x)", "(play 3 3 1 3 o)",
        "(play 1 3 1 1 x)", "(play 1 1 3 1 o)", "(play 3 1 3 2 x)"]),
    "tictactoe-3player": (4, [
        "(mark 4 1)", "(mark 1 1)", "(mark 2 5)", "(mark 2 3)", "(mark 4 2)", "(mark 4 3)", "(mark 4 5)",
        "(mark 4 4)", "(mark 1 3)", "(mark 5 4)", "(mark 2 4)", "(mark 5 5)", "(mark 3 5)"]),
    "quarto-misere": (None, [
        "(select p1111)", "(place p1111 1 4)", "(select p1001)", "(place p1001 3 4)", "(select p0000)",
        "(place p0000 4 2)", "(select p0100)", "(place p0100 2 4)", "(select p1000)", "(place p1000 3 2)",
        "(select p1110)", "(place p1110 3 1)", "(select p0111)", "(place p0111 4 3)", "(select p1010)",
        "(place p1010 2 1)", "(select p1101)", "(place p1101 4 1)", "(select p1100)", "(place p1100 1 2)",
        "(select p0110)", "(place p0110 2 3)"]),
    "quarto-misere-classic": (None, [
        "(select p0110)", "(place p0110 2 4)", "(select p1000)", "(place p1000 3 4)", "(select p0101)",
        "(place p0101 3 2)", "(select p0111)", "(place p0111 1 1)", "(select p1100)", "(place p1100 3 3)",
        "(select p1110)", "(place p1110 1 4)", "(select p1001)", "(place p1001 2 3)", "(select p0000)",
        "(place p0000 1 2)", "(select p0011)", "(place p0011 4 1)", "(select p1111)", "(place p1111 2 1)",
        "(select p1011)", "(place p1011 4 2)"]),
}


@pytest.mark.parametrize("slug", list(FORCED_WINS))
def test_the_solver_proves_a_forced_win_and_plays_a_winning_move(slug):
    game = get_game(slug)
    plies, actions = FORCED_WINS[slug]
    state = game.replay(actions)
    mover = game.to_move(state)
    me = game.roles.index(mover)

    def wins(action):
        after = game.play(state, mover, action)
        if plies is None:  # Quarto's endgame: decided by the brute force over the rest of the game
            return brute_force(game, after)[me] == 100
        return forced_win(game, after, mover, plies - 1)

    legal = game.legal_actions(state)
    assert any(wins(a) for a in legal) and not all(wins(a) for a in legal)
    assert not any(game.is_terminal(game.play(state, mover, a)) for a in legal if wins(a))  # no win in one
    root = search.new_root(game, state, level=STRONG)
    search.search(game, root, rng=random.Random(1), level=STRONG, rounds=20_000)
    assert root.proven is not None and root.proven[me] == 100
    action, _ = search.final_choice(root)
    assert wins(action)


@pytest.mark.parametrize("slug", ["quarto-misere", "quarto-misere-classic", "tictactoe-3player",
                                  "tictactoe-3player-torus"])
def test_the_exact_endgame_search_agrees_with_brute_force(slug):
    game = get_game(slug)
    rng = random.Random(slug)
    compared = 0
    while compared < 6:
        state = game.initial_state()
        while not game.is_terminal(state) and len(game.legal_actions(state)) > 4:
            state = game.play(state, game.to_move(state), rng.choice(game.legal_actions(state)))
        if game.is_terminal(state):
            continue
        if not tree_fits(game, state, [3000]):
            continue
        assert solve(game, state) == brute_force(game, state)
        compared += 1


@pytest.mark.parametrize("slug", ["tictactoe-3player", "tictactoe-3player-torus"])
def test_the_exact_search_for_first_place_agrees_with_brute_force(slug):
    game = get_game(slug)
    rng = random.Random(f"rank:{slug}")
    compared = differed = 0
    while compared < 8:
        state = game.initial_state()
        while not game.is_terminal(state) and len(game.legal_actions(state)) > 5:
            state = game.play(state, game.to_move(state), rng.choice(game.legal_actions(state)))
        if game.is_terminal(state) or not tree_fits(game, state, [3000]):
            continue
        expected = brute_force(game, state, search.ranked)
        assert solve(game, state, rank=True) == expected
        differed += expected != search.ranked(brute_force(game, state))
        compared += 1
    assert differed  # playing for first place changed someone's choice in some of these positions


def test_first_place_values():
    assert search.ranked((100, 0)) == (100, 0) and search.ranked((50, 50)) == (50, 50)  # two players: as goals
    assert search.ranked((66, 100, 66)) == (0, 100, 0)  # a three is worth nothing beside a four
    assert search.ranked((66, 33, 66)) == (50, 0, 50)
    assert search.ranked((33, 33, 33)) == (33, 33, 33)


def test_the_exact_search_gives_up_at_its_deadline(monkeypatch):
    game = get_game("quarto-misere")
    clock = iter(range(10**6))
    monkeypatch.setattr(search.time, "monotonic", lambda: next(clock))
    assert solve(game, game.initial_state(), deadline=3) is None


def test_the_search_stops_at_its_deadline(monkeypatch):
    """The clock is fake: it advances one second each time it is read."""
    game = get_game("nine-board-tictactoe")
    clock = iter(range(10**6))
    monkeypatch.setattr(search.time, "monotonic", lambda: next(clock))
    root = search.new_root(game, game.initial_state(), level=STRONG)
    search.search(game, root, rng=random.Random(0), level=STRONG, rounds=10_000, deadline=5)
    assert 0 < root.visits <= 16 * 7  # read every 16 rounds: the 7th reading is past the deadline


@pytest.mark.parametrize("level", range(1, STRONGEST + 1))
def test_every_level_plays_a_legal_move(level):
    game = get_game("quarto-misere-classic")
    state = game.replay(FORCED_WINS["quarto-misere-classic"][1][:8])
    action = engine.best_move("quarto-misere-classic", state, level=level, seconds=0.3, seed=3)
    assert action in game.legal_actions(state)


def test_a_level_out_of_range_is_refused():
    game = get_game("quarto-misere")
    for level in (0, STRONGEST + 1):
        with pytest.raises(ValueError):
            engine.best_move("quarto-misere", game.initial_state(), level=level)


@pytest.mark.parametrize("level", [3, 4])
def test_the_strong_levels_never_miss_a_win_in_one(level):
    game = get_game("tictactoe-3player-torus")
    rng = random.Random(9)
    seen = 0
    for _ in range(30):
        state = game.initial_state()
        while not game.is_terminal(state):
            mover = game.to_move(state)
            wins = [a for a in game.legal_actions(state)
                    if game.is_terminal(after := game.play(state, mover, a)) and game.goals(after)[mover] == 100]
            if wins:
                seen += 1
                assert search.play_level(game, state, level=level, rng=rng, seconds=None, most_rounds=5) in wins
            state = game.play(state, mover, rng.choice(game.legal_actions(state)))
    assert seen >= 5


def test_the_strong_level_thinks_a_quarter_of_the_time(monkeypatch):
    """The deadline each level's search is given, the clock standing still at 100."""
    game = get_game("nine-board-tictactoe")
    searched = []
    monkeypatch.setattr(search, "search", lambda *args, **kwargs: searched.append(kwargs["deadline"]))
    monkeypatch.setattr(search, "final_choice", lambda root: ("(play 1 1 1 1 x)", None))
    monkeypatch.setattr(search.time, "monotonic", lambda: 100.0)
    for level, budget in ((3, 2.0), (4, 8.0)):
        search.play_level(game, game.initial_state(), level=level, rng=random.Random(0), seconds=8.0)
        assert searched.pop() == 100.0 + budget


def test_a_turn_that_waited_for_a_worker_thinks_only_for_what_is_left(monkeypatch):
    budgets = []
    monkeypatch.setattr(search, "play_level", lambda *args, **kwargs: budgets.append(kwargs["seconds"]))
    monkeypatch.setattr(search.time, "time", lambda: 1000.0)
    state_json = get_game("quarto-misere").state_to_json(get_game("quarto-misere").initial_state())
    for answer_by in (None, 2000.0, 1000.5, 999.0):
        search.choose_action_from_json("quarto-misere", state_json, seed="s", level=4, seconds=1.5,
                                       answer_by=answer_by)
    assert budgets == [1.5, 1.5, 0.5, search.LEAST_SECONDS]


def test_evaluate_repeats_itself_for_a_seed():
    game = get_game("nine-board-tictactoe")
    state = game.replay(FORCED_WINS["nine-board-tictactoe"][1][:10])
    first = engine.evaluate("nine-board-tictactoe", state, rounds=300, seed=4)
    assert first == engine.evaluate("nine-board-tictactoe", state, rounds=300, seed=4)
    assert first.best in game.legal_actions(state) and set(first.scores) == set(game.roles)


def test_evaluate_judges_the_played_move_beside_the_best_in_one_search():
    game = get_game("nine-board-tictactoe")
    start = game.initial_state()
    # The centre board's four corners are one move by the board's symmetry: alike, whatever the
    # samples (the next position's own search put x's chances 13 points lower after each).
    corners = ["(play 2 2 1 1 x)", "(play 2 2 1 3 x)", "(play 2 2 3 1 x)", "(play 2 2 3 3 x)"]
    found = [engine.evaluate("nine-board-tictactoe", start, rounds=1200, seed="analysis.0", played=corner)
             for corner in corners]
    assert len({f.best for f in found}) == 1 and len({f.scores["xPlayer"] for f in found}) == 1
    losses = [f.scores["xPlayer"] - f.played["xPlayer"] for f in found]
    assert max(abs(loss) for loss in losses) < 0.10, losses  # under the inaccuracy threshold
    # A move that hands the opponent a win at once is judged so, and exactly (proven).
    state = game.replay(FORCED_WINS["nine-board-tictactoe"][1][:10])
    mover = game.to_move(state)
    losing = next(a for a in game.legal_actions(state)
                  if _gives_a_win_at_once(game, game.play(state, mover, a)))
    judged = engine.evaluate("nine-board-tictactoe", state, rounds=300, seed=4, played=losing)
    assert judged.played[mover] == 0.0 and judged.scores[mover] > 0.0
    assert judged == engine.evaluate("nine-board-tictactoe", state, rounds=300, seed=4, played=losing)


def _gives_a_win_at_once(game, state) -> bool:
    mover = game.to_move(state)
    return mover is not None and any(
        game.is_terminal(after := game.play(state, mover, a)) and game.goals(after)[mover] == 100
        for a in game.legal_actions(state))


def test_evaluate_gives_expected_scores_even_when_the_computer_plays_for_first_place():
    game = get_game("tictactoe-3player")
    # x completes row 1 at (1, 4) next; o already has three in column 5, z a three on row 5.
    state = game.replay(["(mark 1 1)", "(mark 1 5)", "(mark 5 1)", "(mark 1 2)", "(mark 2 5)", "(mark 5 2)",
                         "(mark 1 3)", "(mark 3 5)", "(mark 5 3)"])
    assert game.to_move(state) == "xplayer" and not game.is_terminal(state)
    found = engine.evaluate("tictactoe-3player", state, rounds=50, seed=1)
    assert found.best == "(mark 1 4)"
    assert found.scores == {"xplayer": 1.0, "oplayer": 0.66, "zplayer": 0.66}


def _midgame(game, seed: int, plies: int = 12):
    """A position ``plies`` random moves in (fewer if the game ends first, then one move back)."""
    rng, actions, state = random.Random(seed), [], game.initial_state()
    while len(actions) < plies:
        action = rng.choice(game.legal_actions(state))
        after = game.play(state, game.to_move(state), action)
        if game.is_terminal(after):
            break
        actions.append(action)
        state = after
    return state


def _played_through(game, state, line):
    """The positions after each move of ``line`` from ``state``; each move must be legal in turn."""
    positions = []
    for action in line:
        assert not game.is_terminal(state) and action in game.legal_actions(state), (action, line)
        state = game.play(state, game.to_move(state), action)
        positions.append(state)
    return positions


@pytest.mark.parametrize("slug", [info.slug for info in GAMES])
def test_the_best_line_starts_with_the_best_move_and_each_move_is_legal_in_turn(slug):
    game = get_game(slug)
    state = _midgame(game, seed=7)
    played = game.legal_actions(state)[-1]
    for found in (engine.evaluate(slug, state, rounds=600, seed=2),
                  engine.evaluate(slug, state, rounds=600, seed=2, played=played)):
        assert found.line[0] == found.best and 1 <= len(found.line) <= search.LINE_PLIES
        _played_through(game, state, found.line)
    assert found == engine.evaluate(slug, state, rounds=600, seed=2, played=played)  # repeatable


def test_the_line_follows_the_most_visited_replies_and_stops_where_the_search_looked_too_little():
    game = get_game("nine-board-tictactoe")
    state = _midgame(game, seed=3, plies=8)
    root = search.new_root(game, state, level=engine.ANALYSIS)
    search.search(game, root, rng=random.Random(1), level=engine.ANALYSIS, rounds=2000)
    line = search.principal_variation(root)
    assert 2 <= len(line) <= search.LINE_PLIES
    node = root
    for action in line:
        assert action == search.final_choice(node)[0]
        node = dict(node.children)[action]
        assert node.proven is not None or node.visits >= search.LINE_LEAST_VISITS
    # The next reply, where the line stopped short of its length, was too thin to be the search's.
    if len(line) < search.LINE_PLIES and node.children:
        reply = search.final_choice(node)[1]
        assert reply.proven is None and reply.visits < search.LINE_LEAST_VISITS
    assert search.principal_variation(root, plies=2) == line[:2]
    assert search.principal_variation(root, least_visits=root.visits + 1) == []


@pytest.mark.parametrize("slug", [slug for slug, (plies, _) in FORCED_WINS.items() if plies is not None])
def test_a_forced_wins_line_follows_the_proof_to_the_win(slug):
    game = get_game(slug)
    plies, actions = FORCED_WINS[slug]
    state = game.replay(actions)
    mover = game.to_move(state)
    found = engine.evaluate(slug, state, rounds=20_000, seed=1)
    assert found.scores[mover] == 1.0 and found.line[0] == found.best
    end = _played_through(game, state, found.line)[-1]
    assert game.is_terminal(end) and game.goals(end)[mover] == 100
    assert len(found.line) <= plies


def test_there_is_no_line_at_the_end_of_the_game():
    game = get_game("tictactoe-3player")
    state = game.replay(["(mark 1 1)", "(mark 2 1)", "(mark 3 1)", "(mark 1 2)", "(mark 2 2)", "(mark 3 2)",
                         "(mark 1 3)", "(mark 2 3)", "(mark 3 3)", "(mark 1 4)"])
    assert engine.evaluate("tictactoe-3player", state, rounds=50).line == ()


def test_progressive_bias_takes_each_move_hint_from_the_rules_and_tries_the_promising_first():
    game = get_game("tictactoe-3player")
    state = game.initial_state()
    hints = dict(zip(game.legal_actions(state), game.move_priors(state)))
    biased = dataclasses.replace(STRONG, bias=10.0)
    root = search.new_root(game, state, level=biased)
    search.search(game, root, rng=random.Random(1), level=biased, rounds=60)
    assert all(child.prior == hints[action] for action, child in root.children)
    action, _ = search.final_choice(root)
    assert hints[action] >= 0.75  # the centre or next to it: the most visited after 60 rounds
    unbiased = dataclasses.replace(STRONG, bias=0.0)
    plain = search.new_root(game, state, level=unbiased)
    search.search(game, plain, rng=random.Random(1), level=unbiased, rounds=60)
    assert hints[search.final_choice(plain)[0]] < 0.75  # without the bias, seed 1 settles elsewhere
    assert all(child.prior == 0.0 for _, child in plain.children)


# Nine-board, xPlayer to move in sub-board (1 3): every move loses against best play, but four of the
# six let oPlayer win at once and two ("(play 1 3 1 3 x)" is the first) only three plies later.
ALL_LOSE = [
    "(play 2 1 1 3 x)", "(play 1 3 3 1 o)", "(play 3 1 2 3 x)", "(play 2 3 2 1 o)", "(play 2 1 3 3 x)",
    "(play 3 3 1 1 o)", "(play 1 1 2 3 x)", "(play 2 3 3 2 o)", "(play 3 2 2 3 x)", "(play 2 3 3 1 o)",
    "(play 3 1 3 2 x)", "(play 3 2 2 1 o)", "(play 2 1 1 1 x)", "(play 1 1 2 2 o)", "(play 2 2 3 3 x)",
    "(play 3 3 1 3 o)", "(play 1 3 2 1 x)", "(play 2 1 2 3 o)", "(play 2 3 1 2 x)", "(play 1 2 2 2 o)",
    "(play 2 2 2 1 x)", "(play 2 1 2 1 o)", "(play 2 1 3 2 x)", "(play 3 2 1 2 o)", "(play 1 2 2 3 x)",
    "(play 2 3 2 2 o)", "(play 2 2 1 1 x)", "(play 1 1 3 1 o)", "(play 3 1 2 1 x)", "(play 2 1 3 1 o)",
    "(play 3 1 1 2 x)", "(play 1 2 1 2 o)", "(play 1 2 3 1 x)", "(play 3 1 3 1 o)", "(play 3 1 1 1 x)",
    "(play 1 1 3 2 o)", "(play 3 2 1 3 x)", "(play 1 3 2 2 o)", "(play 2 2 1 2 x)", "(play 1 2 1 3 o)"]


def test_in_a_lost_position_the_computer_plays_the_move_hardest_to_punish():
    game = get_game("nine-board-tictactoe")
    state = game.replay(ALL_LOSE)
    mover, legal = game.to_move(state), game.legal_actions(state)
    assert mover == "xPlayer"
    loses_at_once = {a for a in legal if forced_win(game, game.play(state, mover, a), "oPlayer", 1)}
    assert all(forced_win(game, game.play(state, mover, a), "oPlayer", 3) for a in legal)
    assert 0 < len(loses_at_once) < len(legal)
    expert = dataclasses.replace(LEVELS[3], rounds=3000)
    chosen = [choose_action(game, state, rng=random.Random(seed), iterations=3000, level=expert)
              for seed in range(6)]
    assert not loses_at_once & set(chosen)
    # Without it, the proven position is played in the rules' order, and that first move loses at once.
    first = [choose_action(game, state, rng=random.Random(seed), iterations=3000,
                           level=dataclasses.replace(expert, practical=False)) for seed in range(6)]
    assert loses_at_once & set(first)


def test_the_search_values_ends_by_first_place_or_by_the_goals():
    everyone = search.worth_for(True)
    assert everyone((100, 66, 66)) == (100, 0, 0) and everyone((66, 100, 66)) == (0, 100, 0)
    assert search.worth_for(False)((66, 100, 66)) == (66, 100, 66)


def test_contempt_lowers_a_draw_for_the_searching_role_alone():
    two = search.worth_for(False, me=1, contempt=15)
    assert two((50, 50)) == (50, 35)  # a draw, less the contempt, for the searcher only
    assert two((100, 0)) == (100, 0) and two((0, 100)) == (0, 100)  # wins and losses as they are
    three = search.worth_for(True, me=0, contempt=10)
    assert three((66, 66, 66)) == (23, 33, 33)  # all three level: a draw
    assert three((100, 100, 66)) == (50, 50, 0)  # first place shared by two is a place, not a draw
    assert three((66, 100, 66)) == (0, 100, 0) and three((100, 66, 66)) == (100, 0, 0)
    assert search.worth_for(True, me=0)((66, 66, 66)) == (33, 33, 33)  # no contempt: as before


# Classic misère Quarto, white to move, every move but one loses against best play (found by the
# rules' exact search): placing p0011 at (2 1), and selecting p1101.
ONE_DRAW = {
    "(place p0011 2 1)": [
        "(select p0111)", "(place p0111 1 2)", "(select p0101)", "(place p0101 4 4)", "(select p1011)",
        "(place p1011 1 3)", "(select p1101)", "(place p1101 4 3)", "(select p0001)", "(place p0001 1 4)",
        "(select p0000)", "(place p0000 2 3)", "(select p1000)", "(place p1000 2 4)", "(select p0110)",
        "(place p0110 4 1)", "(select p1111)", "(place p1111 3 3)", "(select p1110)", "(place p1110 3 2)",
        "(select p1001)", "(place p1001 4 2)", "(select p0011)"],
    "(select p1101)": [
        "(select p0111)", "(place p0111 2 3)", "(select p0001)", "(place p0001 1 4)", "(select p1000)",
        "(place p1000 4 2)", "(select p0011)", "(place p0011 2 1)", "(select p0010)", "(place p0010 1 1)",
        "(select p1011)", "(place p1011 2 4)", "(select p1001)", "(place p1001 3 1)", "(select p0110)",
        "(place p0110 4 3)", "(select p1100)", "(place p1100 2 2)", "(select p1111)", "(place p1111 4 1)"],
}


@pytest.mark.parametrize("draw", sorted(ONE_DRAW))
@pytest.mark.parametrize("contempt, seconds", [(0, None), (25, None), (45, 30.0)])
def test_contempt_never_trades_a_proven_draw_for_a_loss(draw, contempt, seconds):
    """With time to think (as in play) the exact endgame search proves every move, and any
    contempt keeps the draw; the search alone (no clock: no exact search) keeps it at the
    contempt the levels use. (A contempt as large as 45 makes a draw proven inside the tree
    worth less than a losing line's hopeful estimate: that is why the levels' is small.)"""
    game = get_game("quarto-misere-classic")
    state = game.replay(ONE_DRAW[draw])
    mover = game.to_move(state)
    values = {a: game.exact_goals(game.play(state, mover, a))[mover] for a in game.legal_actions(state)}
    assert values[draw] == 50 and sorted(values.values()).count(50) == 1 and max(values.values()) == 50
    assert LEVELS[3].contempt == 25  # the levels' own
    level = dataclasses.replace(LEVELS[3], rounds=2000, contempt=contempt)
    assert {choose_action(game, state, rng=random.Random(seed), iterations=2000, seconds=seconds, level=level)
            for seed in range(4)} == {draw}


def test_the_endgame_uses_the_rules_own_exact_search_where_they_have_one(monkeypatch):
    game = get_game("quarto-misere-classic")
    state = game.replay(FORCED_WINS["quarto-misere-classic"][1])
    mover = game.to_move(state)
    calls = []
    exact, win = game.exact_goals, game.exact_win
    monkeypatch.setattr(game, "exact_goals", lambda *args: calls.append(args) or exact(*args))
    monkeypatch.setattr(game, "exact_win", lambda *args: calls.append(args) or win(*args))  # the expert's first look
    monkeypatch.setattr(search, "_exact", lambda *args: pytest.fail("the generic exact search ran"))
    action = choose_action(game, state, rng=random.Random(0), iterations=100, seconds=5.0, level=PURE_EXPERT)
    assert calls
    assert exact(game.play(state, mover, action))[mover] == 100  # a winning move, proven


# Classic Quarto after 15 plies (recorded against the plain UCT): white to place with 9 pieces
# left, a forced win by one placement of nine; the expert at one second a move missed it.
WON_AT_PLY_15 = [
    "(select p1111)", "(place p1111 3 1)", "(select p1100)", "(place p1100 3 4)", "(select p0011)",
    "(place p0011 2 2)", "(select p1010)", "(place p1010 2 3)", "(select p0101)", "(place p0101 1 4)",
    "(select p0010)", "(place p0010 2 1)", "(select p1001)", "(place p1001 4 4)", "(select p1101)"]
DRAWN_AT_PLY_15 = [
    "(select p1110)", "(place p1110 3 2)", "(select p0000)", "(place p0000 2 1)", "(select p1100)",
    "(place p1100 3 1)", "(select p1000)", "(place p1000 4 1)", "(select p1011)", "(place p1011 2 2)",
    "(select p0100)", "(place p0100 4 3)", "(select p1111)", "(place p1111 1 4)", "(select p1010)"]


def test_the_win_search_proves_a_forced_win_the_exact_search_would_not_try():
    """With ``win_by``, ``_solve_children`` looks for a winning child before (here: instead of,
    its deadline being past) proving every child: it proves the one winning placement and the
    root; in a drawn position it proves nothing; without ``win_by`` it does not look."""
    game = get_game("quarto-misere-classic")
    level = dataclasses.replace(LEVELS[3], win_share=0.7)
    for moves, winning in ((WON_AT_PLY_15, True), (DRAWN_AT_PLY_15, False)):
        state = game.replay(moves)
        worth = search._level_worth(game, state, level)
        root = search.new_root(game, state, level=level)
        search._solve_children(game, root, random.Random(0), time.monotonic() - 1, worth, time.monotonic() + 120)
        proven = [(action, child) for action, child in root.children if child.proven is not None]
        if winning:
            assert root.proven == (100, 0)
            assert [action for action, _ in proven] == ["(place p1101 3 2)"]
            assert game.exact_goals(game.play(state, "white", "(place p1101 3 2)"))["white"] == 100
        else:
            assert game.exact_goals(state)["white"] == 50
            assert root.proven is None and not proven
        without = search.new_root(game, state, level=level)
        search._solve_children(game, without, random.Random(0), time.monotonic() - 1, worth, None)
        assert without.proven is None and all(child.proven is None for _, child in without.children)


def test_the_win_search_stops_at_its_deadline():
    game = get_game("quarto-misere-classic")
    state = game.replay(WON_AT_PLY_15)
    level = dataclasses.replace(LEVELS[3], win_share=0.7)
    root = search.new_root(game, state, level=level)
    worth = search._level_worth(game, state, level)
    search._find_win(game, root, {}, 0.0, worth)  # long past: gives up at the first check
    assert root.proven is None and all(child.proven is None for _, child in root.children)
    search._find_win(game, root, {}, time.monotonic() + 120, worth)
    assert root.proven == (100, 0)


def _tree(node):  # every node of a search tree
    yield node
    for _, child in node.children:
        yield from _tree(child)


@pytest.mark.parametrize("slug", ["tictactoe-3player", "tictactoe-3player-torus"])
def test_score_seats_value_ends_by_the_goals_in_those_seats_only(slug):
    assert LEVELS[3].score_seats == (1,) and LEVELS[2].score_seats == ()  # the expert's second seat of three
    game = get_game(slug)
    level = dataclasses.replace(LEVELS[3], score_seats=(1,), contempt=0)
    as_o = game.replay(["(mark 3 3)"])  # oplayer to move
    as_z = game.replay(["(mark 3 3)", "(mark 2 2)"])
    assert search._level_worth(game, as_o, level)((66, 100, 66)) == (66, 100, 66)  # a three keeps its 66
    assert search._level_worth(game, as_z, level)((66, 100, 66)) == (0, 100, 0)  # first place, as the levels
    root = search.new_root(game, as_o, level=level)
    search.search(game, root, rng=random.Random(4), level=level, rounds=200)
    # a leaf's one round valued 66 to oplayer: a GGP goal (a place is worth 100, 50, 33 or 0)
    assert any(node.visits == 1 and node.totals[1] == 66 for node in _tree(root))
    ranking = dataclasses.replace(level, score_seats=())
    ranked_root = search.new_root(game, as_o, level=ranking)
    search.search(game, ranked_root, rng=random.Random(4), level=ranking, rounds=200)
    assert not any(node.visits == 1 and node.totals[1] == 66 for node in _tree(ranked_root))


def test_the_expert_plays_a_forced_win_its_win_search_finds(monkeypatch):
    """The expert level has the win search: with the exact endgame search given no time, it
    still plays the one winning placement of nine, by ``Game.exact_win``."""
    assert LEVELS[3].win_share == 0.7
    game = get_game("quarto-misere-classic")
    state = game.replay(WON_AT_PLY_15)
    calls = []
    win = game.exact_win
    monkeypatch.setattr(game, "exact_win", lambda *args: calls.append(args) or win(*args))
    monkeypatch.setattr(search, "ENDGAME_SHARE", 0.0)
    action = choose_action(game, state, rng=random.Random(0), iterations=10**7, seconds=30.0, level=PURE_EXPERT)
    assert action == "(place p1101 3 2)" and calls


def test_the_wary_search_blocks_a_four_the_role_in_between_may_leave_open():
    """z to move; o has three of a diagonal, (1, 2) open, and x moves before o. A plain UCT x
    holding a three of its own leaves such a four open about half the time (docs/computer.md);
    the expert's tree takes x to block it. ``wary`` searches only the block."""
    game = get_game("tictactoe-3player")
    state = game.replay(["(mark 3 3)", "(mark 2 3)", "(mark 4 4)", "(mark 3 2)", "(mark 3 4)", "(mark 4 2)",
                         "(mark 3 1)", "(mark 4 5)"])
    assert game.to_move(state) == "zplayer"
    assert LEVELS[STRONGEST - 1].wary and not LEVELS[STRONGEST - 2].wary  # the expert's alone
    level = LEVELS[STRONGEST - 1]
    root = search.new_root(game, state, level=level)
    search._keep_wary(game, root, "zplayer")
    assert root.untried == ["(mark 1 2)"]
    assert choose_action(game, state, rng=random.Random(1), iterations=300, level=level) == "(mark 1 2)"


def test_the_wary_search_keeps_every_move_where_no_four_is_left_open():
    game = get_game("tictactoe-3player")
    state = game.replay(["(mark 3 3)", "(mark 2 3)"])  # zplayer to move, nobody has three
    root = search.new_root(game, state, level=LEVELS[STRONGEST - 1])
    moves = list(root.untried)
    search._keep_wary(game, root, "zplayer")
    assert root.untried == moves


def test_the_wary_search_keeps_every_move_when_no_move_blocks():
    """o has two open fours (a double threat) with x in between: z can block only one, so
    nothing is left out."""
    game = get_game("tictactoe-3player")
    # o: (2 2) (2 3) (2 4), with (2 1) and (2 5) open; x and z elsewhere.
    state = game.replay(["(mark 5 1)", "(mark 2 2)", "(mark 5 5)", "(mark 4 1)", "(mark 2 3)", "(mark 4 5)",
                         "(mark 1 3)", "(mark 2 4)"])
    assert game.to_move(state) == "zplayer"
    root = search.new_root(game, state, level=LEVELS[STRONGEST - 1])
    moves = list(root.untried)
    search._keep_wary(game, root, "zplayer")
    assert root.untried == moves


def test_the_wary_search_changes_nothing_with_two_players():
    game = get_game("nine-board-tictactoe")
    state = game.initial_state()
    level = LEVELS[STRONGEST - 1]
    plain = choose_action(game, state, rng=random.Random(2), iterations=200, level=dataclasses.replace(level, wary=False))
    assert choose_action(game, state, rng=random.Random(2), iterations=200,
                         level=dataclasses.replace(level, wary=True)) == plain


def test_with_model_others_the_other_roles_moves_in_the_tree_are_drawn_from_the_model(monkeypatch):
    """x searches; the model has o and z always take the first empty cell, so below each of x's
    moves the tree holds that reply alone, while x's own nodes still try every move."""
    assert LEVELS[STRONGEST - 1].model_others and not LEVELS[STRONGEST - 2].model_others  # the expert's alone
    game = get_game("tictactoe-3player")
    monkeypatch.setattr(type(game), "others_model",
                        lambda self, state: [1.0] + [0.0] * (len(self.legal_actions(state)) - 1))
    level = dataclasses.replace(LEVELS[STRONGEST - 1], model_others=True, wary=False)
    root = search.new_root(game, game.initial_state(), level=level)
    search.search(game, root, rng=random.Random(3), level=level, rounds=400)
    assert len(root.children) == 25  # x, the searcher, tries every move
    for x_move, o_node in root.children:
        assert len(o_node.children) <= 1
        for o_move, z_node in o_node.children:
            assert o_move == game.legal_actions(o_node.state)[0]
            assert all(z_move == game.legal_actions(z_node.state)[0] for z_move, _ in z_node.children)
    assert sum(len(o_node.children) for _, o_node in root.children) >= 20
    # without the switch the same search spreads o's replies
    plain = dataclasses.replace(level, model_others=False)
    root = search.new_root(game, game.initial_state(), level=plain)
    search.search(game, root, rng=random.Random(3), level=plain, rounds=400)
    assert max(len(o_node.children) for _, o_node in root.children) > 1


def test_model_others_changes_nothing_without_a_model():
    game = get_game("nine-board-tictactoe")
    state = game.initial_state()
    level = LEVELS[STRONGEST - 1]
    plain = choose_action(game, state, rng=random.Random(2), iterations=200,
                          level=dataclasses.replace(level, model_others=False))
    assert choose_action(game, state, rng=random.Random(2), iterations=200,
                         level=dataclasses.replace(level, model_others=True)) == plain
