"""``Game.tactical_playout``: the strong levels' playouts follow the rules, take a win in one,
and avoid a loss in one where they can; checked against the interface over random games."""

import random

import pytest

from games.rules import SLUGS, get_game
from tests.support.rules import possible_goals, tree_fits

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


def random_states(game, seed: int, games: int = 12):
    """Every position of ``games`` random games played through the interface."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.initial_state()
        while not game.is_terminal(state):
            yield state
            state = game.play(state, game.to_move(state), rng.choice(game.legal_actions(state)))
        yield state


def winning_actions(game, state):
    mover = game.to_move(state)
    wins = []
    for action in game.legal_actions(state):
        after = game.play(state, mover, action)
        if game.is_terminal(after) and game.goals(after)[mover] == 100:
            wins.append(action)
    return wins


@pytest.mark.parametrize("slug", SLUGS)
def test_tactical_playouts_end_as_the_rules_allow(slug):
    game = get_game(slug)
    rng = random.Random(4)
    checked = 0
    for state in random_states(game, seed=1, games=6):
        if game.is_terminal(state):
            assert game.tactical_playout(state, rng) == game.goals(state)
            continue
        if checked < 12 and tree_fits(game, state, [300]):
            checked += 1
            endings = possible_goals(game, state)
            assert all(game.tactical_playout(state, rng) in endings for _ in range(20))
    assert checked


@pytest.mark.parametrize("slug", [s for s in SLUGS if not s.startswith("quarto")])
def test_a_mover_with_a_win_in_one_takes_it(slug):
    game = get_game(slug)
    rng = random.Random(5)
    found = 0
    for state in random_states(game, seed=2):
        if not game.is_terminal(state) and winning_actions(game, state):
            found += 1
            mover = game.to_move(state)
            assert all(game.tactical_playout(state, rng)[mover] == 100 for _ in range(10))
    assert found >= 5


@pytest.mark.parametrize("slug", ["quarto-misere", "quarto-misere-classic"])
def test_a_placement_avoids_completing_a_line_when_it_can(slug):
    """With two cells left and a piece that loses on one of them only, the playout plays the
    other, so its result is that of the safe placement and the forced last move."""
    game = get_game(slug)
    rng = random.Random(6)
    found = 0
    for state in random_states(game, seed=3, games=100):
        if game.is_terminal(state) or game.phase(state) != "place" or len(game.legal_actions(state)) != 2:
            continue
        mover = game.to_move(state)
        after = [game.play(state, mover, action) for action in game.legal_actions(state)]
        safe = [s for s in after if not (game.is_terminal(s) and game.goals(s)[mover] == 0)]
        if len(safe) != 1:
            continue
        found += 1
        expected = possible_goals(game, safe[0])
        assert len(expected) == 1  # one piece and one cell are left: the rest is forced
        assert all(game.tactical_playout(state, rng) == expected[0] for _ in range(10))
    assert found >= 3


def test_a_classic_selection_hands_over_a_piece_that_must_complete_a_line():
    game = get_game("quarto-misere-classic")
    rng = random.Random(7)
    found = 0
    for state in random_states(game, seed=4, games=60):
        if game.is_terminal(state) or game.phase(state) != "select" or len(game.legal_actions(state)) > 6:
            continue
        selector = game.to_move(state)
        for action in game.legal_actions(state):
            handed = game.play(state, selector, action)
            placer = game.to_move(handed)
            outcomes = [game.play(handed, placer, place) for place in game.legal_actions(handed)]
            if all(game.is_terminal(s) and game.goals(s)[placer] == 0 for s in outcomes):
                found += 1
                assert all(game.tactical_playout(state, rng)[selector] == 100 for _ in range(10))
                break
    assert found >= 3


def tactical_outcomes(game, state, known=None, tactical=True) -> set:
    """Every end a Quarto playout that follows the tactical rule may reach from ``state``: a
    placement completes a line only when every place does; a classic selection hands over a
    piece with no safe place when there is one; a selection for oneself takes a piece with a
    safe place when there is one (every end of the game without ``tactical``). Written plainly
    over the interface."""
    known = {} if known is None else known
    if state in known:
        return known[state]
    if game.is_terminal(state):
        return {tuple(sorted(game.goals(state).items()))}
    mover = game.to_move(state)

    def loses(after):
        return game.is_terminal(after) and game.goals(after)[mover] == 0

    def no_safe_place(handed):
        placer = game.to_move(handed)
        return all(game.is_terminal(s) and game.goals(s)[placer] == 0
                   for s in (game.play(handed, placer, a) for a in game.legal_actions(handed)))

    afters = [game.play(state, mover, action) for action in game.legal_actions(state)]
    if not tactical:
        allowed = afters
    elif game.phase(state) == "place":
        allowed = [after for after in afters if not loses(after)] or afters
    elif game.order == "classic":
        allowed = [after for after in afters if no_safe_place(after)] or afters
    else:
        allowed = [after for after in afters if not no_safe_place(after)] or afters
    known[state] = set().union(*(tactical_outcomes(game, after, known, tactical) for after in allowed))
    return known[state]


@pytest.mark.parametrize("slug", ["quarto-misere", "quarto-misere-classic"])
def test_quarto_playouts_follow_the_tactical_rule_to_the_end(slug):
    """From positions with four or five empty cells, every playout ends where the rule allows,
    and from some of them the rule excludes an end that random play can reach."""
    game = get_game(slug)
    rng = random.Random(8)
    checked = narrower = 0
    for state in random_states(game, seed=9, games=80):
        empty = 16 - bin(state.filled).count("1")
        if game.is_terminal(state) or empty not in (4, 5):
            continue
        allowed = tactical_outcomes(game, state)
        ends = {tuple(sorted(game.tactical_playout(state, rng).items())) for _ in range(30)}
        assert ends <= allowed
        checked += 1
        narrower += allowed != tactical_outcomes(game, state, tactical=False)
        if checked == 40:
            break
    assert checked == 40 and narrower >= 3


def hints(game, hook, seed):
    """Each random state's ``hook`` values (``move_priors``, ``others_model``) where the game gives
    some, checked to be one per legal action."""
    for state in random_states(game, seed=seed, games=3):
        values = getattr(game, hook)(state)
        if values is not None:
            assert len(values) == len(game.legal_actions(state))
            yield values


@pytest.mark.parametrize("slug", SLUGS)
def test_move_priors_are_none_or_one_hint_per_legal_action_in_zero_to_one(slug):
    for priors in hints(get_game(slug), "move_priors", 17):
        assert all(0.0 <= p <= 1.0 for p in priors)
        assert not priors or max(priors) == 1.0


def test_three_player_priors_favour_the_centre_and_a_block_of_an_open_three():
    game = get_game("tictactoe-3player")
    state = game.initial_state()
    priors = dict(zip(game.legal_actions(state), game.move_priors(state)))
    assert priors["(mark 3 3)"] == 1.0 and priors["(mark 1 1)"] < priors["(mark 2 2)"] < priors["(mark 3 3)"]
    # o has (4 2), (4 3), (4 4); x and z have marks far from row 4. x to move.
    state = game.replay(["(mark 1 1)", "(mark 4 2)", "(mark 1 5)", "(mark 5 5)", "(mark 4 3)", "(mark 5 1)",
                         "(mark 2 3)", "(mark 4 4)", "(mark 1 3)"])
    assert game.to_move(state) == "xplayer"
    priors = dict(zip(game.legal_actions(state), game.move_priors(state)))
    assert max(priors["(mark 4 1)"], priors["(mark 4 5)"]) > priors["(mark 3 1)"]


@pytest.mark.parametrize("slug", SLUGS)
def test_the_others_model_is_none_or_a_likelihood_per_legal_action(slug):
    for likely in hints(get_game(slug), "others_model", 23):
        assert all(p > 0.0 for p in likely) and sum(likely) == pytest.approx(1.0)


def test_only_the_bounded_three_player_game_has_a_model_of_the_plain_uct():
    assert get_game("tictactoe-3player").others_model(get_game("tictactoe-3player").initial_state()) is not None
    for slug in ("tictactoe-3player-torus", "nine-board-tictactoe", "quarto-misere"):
        game = get_game(slug)
        assert game.others_model(game.initial_state()) is None


def test_the_models_features_say_what_a_mark_makes_and_blocks():
    from games.rules.three_player import MODEL_FEATURES
    game = get_game("tictactoe-3player")
    # x: (1 1) (1 2) (1 3); o: (2 1) (2 2) (2 3); z: (5 5) (4 5) (3 5). x to move: (1 4) makes x's
    # four; o (next) would make four at (2 4), z (last) at (2 5).
    state = game.replay(["(mark 1 1)", "(mark 2 1)", "(mark 5 5)", "(mark 1 2)", "(mark 2 2)", "(mark 4 5)",
                         "(mark 1 3)", "(mark 2 3)", "(mark 3 5)"])
    assert game.to_move(state) == "xplayer"
    rows = {action: dict(zip(MODEL_FEATURES, row))
            for action, row in zip(game.legal_actions(state), game.model_features(state))}
    assert rows["(mark 1 4)"]["win"] and not rows["(mark 2 4)"]["win"]
    assert rows["(mark 2 4)"]["block_next"] and not rows["(mark 2 4)"]["block_last"]
    assert rows["(mark 2 5)"]["block_last"] and not rows["(mark 2 5)"]["block_next"]
    # x holds a three already: a block is one made holding a three, and no three is its first
    assert rows["(mark 2 4)"]["block_holding_three"] and not rows["(mark 1 4)"]["first_three"]
    assert not any(rows["(mark 5 1)"][name] for name in ("win", "block_next", "block_last", "first_three"))
    likely = dict(zip(game.legal_actions(state), game.others_model(state)))
    assert max(likely, key=likely.get) == "(mark 1 4)"
