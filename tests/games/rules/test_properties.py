"""Properties every rule set must have, checked over random games with hypothesis."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import GAMES, NOOP, SLUGS, GameNotOver, RulesError, get_game

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

ROOT = Path(__file__).resolve().parents[3]
MAX_PLIES = {"nine-board": 81, "three-player": 25, "quarto": 32}
choices = st.lists(st.integers(min_value=0, max_value=10**6), min_size=100, max_size=100)


def action_space(game) -> list[str]:
    """Every well-formed action text of ``game``'s notation, legal or not anywhere."""
    family = game.info.family
    if family == "nine-board":
        probe = game.legal_actions(game.initial_state())[0]
        verb = probe[1:probe.index(" ")]
        cells = [(i, j, k, l) for i in (1, 2, 3) for j in (1, 2, 3) for k in (1, 2, 3) for l in (1, 2, 3)]
        if verb == "mark":
            return [f"(mark {i} {j} {k} {l})" for i, j, k, l in cells]
        return [f"(play {i} {j} {k} {l} {m})" for i, j, k, l in cells for m in "xo"] + ["swap"]
    if family == "three-player":
        return [f"(mark {m} {n})" for m in range(1, 6) for n in range(1, 6)]
    pieces = [f"p{n:04b}" for n in range(16)]
    return [f"(select {p})" for p in pieces] + [
        f"(place {p} {x} {y})" for p in pieces for x in range(1, 5) for y in range(1, 5)]


def random_game(game, picks):
    """States and actions of the game steered by ``picks``, to the end."""
    state, states, actions = game.initial_state(), [], []
    for pick in picks:
        states.append(state)
        if game.is_terminal(state):
            break
        legal = game.legal_actions(state)
        action = legal[pick % len(legal)]
        state = game.play(state, game.to_move(state), action)
        actions.append(action)
    return states, actions


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=choices)
def test_every_game_ends_and_replays_to_the_same_state(slug, picks):
    game = get_game(slug)
    states, actions = random_game(game, picks)
    final = states[-1]
    assert game.is_terminal(final), "a game must end within the board's size"
    assert len(actions) <= MAX_PLIES[game.info.family]
    assert game.replay(actions) == final
    for state in states:
        data = json.loads(json.dumps(game.state_to_json(state)))
        assert game.state_from_json(data) == state


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=choices)
def test_goals_exist_exactly_in_terminal_states(slug, picks):
    game = get_game(slug)
    states, _ = random_game(game, picks)
    for state in states[:-1]:
        assert not game.is_terminal(state)
        with pytest.raises(GameNotOver):
            game.goals(state)
    goals = game.goals(states[-1])
    assert set(goals) == set(game.roles)
    assert all(isinstance(v, int) and 0 <= v <= 100 for v in goals.values())
    assert all(game.legal_moves(states[-1], role) == [] for role in game.roles)


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=choices, step=st.integers(min_value=0, max_value=40))
def test_legal_actions_apply_and_every_other_action_is_refused_unchanged(slug, picks, step):
    game = get_game(slug)
    states, _ = random_game(game, picks)
    state = states[min(step, len(states) - 1)]
    before = game.state_to_json(state)
    mover = game.to_move(state)
    legal = set(game.legal_actions(state))
    for role in game.roles:
        expected = [] if mover is None else (sorted(legal) if role == mover else [NOOP])
        assert sorted(game.legal_moves(state, role)) == expected
    for action in action_space(game):
        if action in legal:
            joint = game.joint(state, action)
            assert game.next_state(state, joint) == game.play(state, mover, action)
        else:
            with pytest.raises(RulesError):
                game.play(state, mover or game.roles[0], action)
    assert game.state_to_json(state) == before, "a refused action must change nothing"


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=choices)
def test_the_view_offers_exactly_the_legal_actions(slug, picks):
    game = get_game(slug)
    states, _ = random_game(game, picks)
    for ply, state in enumerate(states):
        view = game.view(state)
        offered = list(view["cell_actions"].values()) + [a["action"] for a in view["other_actions"]]
        offered += list(view.get("piece_actions", {}).values())
        assert sorted(offered) == sorted(game.legal_actions(state))
        assert view["ply"] == ply
        assert view["to_move"] == game.to_move(state)
        assert bool(view["line"]) == (game.is_terminal(state) and bool(game.outcome(state).line))


@pytest.mark.parametrize("slug", SLUGS)
def test_random_playouts_agree_with_play_through_the_interface(slug):
    """The fast playout must be the same random game: compare outcome rates over fixed seeds."""
    game = get_game(slug)
    runs = 1500

    def tally(results):
        counts = {}
        for goals in results:
            key = tuple(goals[r] for r in game.roles)
            counts[key] = counts.get(key, 0) + 1
        return counts

    rng = random.Random(11)
    fast = tally(game.random_playout(game.initial_state(), rng) for _ in range(runs))
    slow_rng = random.Random(12)
    slow = []
    for _ in range(runs):
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.play(state, game.to_move(state), slow_rng.choice(game.legal_actions(state)))
        slow.append(game.goals(state))
    slow = tally(slow)
    for key in set(fast) | set(slow):
        assert abs(fast.get(key, 0) - slow.get(key, 0)) / runs < 0.06, (key, fast, slow)


def test_every_slug_is_registered_with_lobby_data():
    """``SLUGS`` is the one list of the rule sets this site has (the clock sweep, the sheets and
    the pages read it), in lobby order."""
    assert SLUGS == ("nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player",
                     "tictactoe-3player-torus", "quarto-misere", "quarto-misere-classic")
    assert SLUGS == tuple(info.slug for info in GAMES)
    for info in GAMES:
        assert info.name and info.summary and info.players == len(info.roles)
    with pytest.raises(KeyError):
        get_game("chess")


def test_states_are_immutable_values():
    for slug in SLUGS:
        game = get_game(slug)
        state = game.initial_state()
        hash(state)
        with pytest.raises(AttributeError):
            state.ply = 5
        game.play(state, game.to_move(state), game.legal_actions(state)[0])
        assert state == game.initial_state()


def test_the_rules_import_with_the_standard_library_alone():
    result = subprocess.run([sys.executable, "-S", "-c", "import games.rules, sys; "
                             "assert not [m for m in sys.modules if m.split('.')[0] in ('django', 'channels')]"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
