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
