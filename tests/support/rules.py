"""Helpers for rules tests."""


def possible_goals(game, state) -> list[dict]:
    """Every goals dict that some sequence of legal actions from ``state`` reaches (exhaustive:
    use near the end of a game)."""
    if game.is_terminal(state):
        return [game.goals(state)]
    found = []
    for action in game.legal_actions(state):
        for goals in possible_goals(game, game.play(state, game.to_move(state), action)):
            if goals not in found:
                found.append(goals)
    return found


def tree_fits(game, state, budget: list[int]) -> bool:
    """Whether the game tree below ``state`` has at most ``budget[0]`` positions (counting down
    ``budget[0]``, and stopping as soon as it runs out)."""
    budget[0] -= 1
    if budget[0] < 0:
        return False
    mover = game.to_move(state)
    return mover is None or all(tree_fits(game, game.play(state, mover, a), budget) for a in game.legal_actions(state))
