"""The rating maths, pure: openskill's Weng-Lin Plackett-Luce model, and the scale people see.

Plackett-Luce rates any number of players from a ranking with ties, so the three-player game
(scores 100/66/33/0) and the two-player games (win, loss, draw) share one model. A rating is a
mean ``mu`` and a deviation ``sigma`` (openskill's defaults: 25 and 25/3). People see
``1500 + 42 * (mu - 25)``: a new player is 1500 with a deviation of 350 on that scale, the
starting point of Glicko-2 on lichess, so the numbers read like the ones players know; the
mean, not the cautious ordinal ``mu - 3 sigma``, because the ordinal would start everyone near
450 and rise with every game played, win or lose.
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
INITIAL = (MODEL.mu, MODEL.sigma)
SHOWN_BASE, SHOWN_PER_MU = 1500, 42
PROVISIONAL_GAMES = 10  # rated matches before a rating is shown without "?"

Skill = tuple[float, float]  # (mu, sigma)


def shown(mu: float) -> int:
    """The rating people see for a mean ``mu``: ``shown(25.0) == 1500``."""
    return round(SHOWN_BASE + SHOWN_PER_MU * (mu - MODEL.mu))


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def ranks(scores: Sequence[int]) -> list[int]:
    """1 for the best score; equal scores share a rank: ``ranks([66, 100, 66]) == [2, 1, 2]``."""
    return [1 + sum(other > score for other in scores) for score in scores]


def rate(skills: Sequence[Skill], scores: Sequence[int]) -> list[Skill]:
    """The players' new skills after one match in which they scored ``scores`` (one player per
    team, in the same order as ``skills``)."""
    teams = [[MODEL.create_rating([mu, sigma])] for mu, sigma in skills]
    rated = MODEL.rate(teams, ranks=ranks(scores))
    return [(team[0].mu, team[0].sigma) for team in rated]
