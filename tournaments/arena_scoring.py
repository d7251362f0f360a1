"""Arena scores: pure, the standard library only.

A player's games, in the order they were played, make their score sheet:

- a win scores ``WIN`` (2), a draw ``DRAW`` (1), a loss nothing;
- **fire**: after two wins in a row each win scores double, until a game is not won;
- **berserk**: a player who halved their own clock gets ``BERSERK_BONUS`` (1) more for a win,
  if the game lasted at least ``BERSERK_MIN_PLIES`` moves (both sides' moves counted);
- **draws**: a draw of fewer than ``EARLY_DRAW_PLIES`` moves scores nothing, and a draw that
  follows a draw scores only if it lasted at least ``DRAW_STREAK_PLIES`` moves. These games
  draw far more often than chess, and two players could otherwise trade quick draws for points;
- a game called off before it began (``None``) is not on the sheet.

Ties are broken by the performance rating: the average rating of the opponents met, plus
``PERFORMANCE_SPREAD`` per win and minus it per loss, averaged over the games.

    >>> sheet([Played("win", 30), Played("win", 30), Played("win", 30, berserk=True), Played("draw", 30)]).score
    10
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

WIN, DRAW, LOSS = 2, 1, 0
BERSERK_BONUS = 1
BERSERK_MIN_PLIES = 8
EARLY_DRAW_PLIES = 10
DRAW_STREAK_PLIES = 20
PERFORMANCE_SPREAD = 400
OUTCOMES = ("win", "draw", "loss")


@dataclass(frozen=True)
class Played:
    """One finished game from one player's side: ``outcome`` ("win", "draw" or "loss"), how
    many moves it lasted, whether this player went berserk, and the opponent's rating."""

    outcome: str
    plies: int
    berserk: bool = False
    opponent_rating: int = 1500

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"a game is won, drawn or lost, not {self.outcome!r}")


@dataclass(frozen=True)
class Mark:
    """One game on the sheet: the points it scored, whether it was scored on fire (doubled),
    and whether a berserk bonus was earned."""

    points: int
    outcome: str
    fire: bool = False
    berserk: bool = False


@dataclass(frozen=True)
class Sheet:
    score: int
    marks: tuple[Mark, ...]
    on_fire: bool  # the next win scores double
    performance: int  # 0 before a first game
    berserks: int  # games in which the player went berserk


def sheet(games: Sequence[Played]) -> Sheet:
    """Score ``games`` (in the order played)."""
    marks: list[Mark] = []
    wins_in_a_row, last = 0, None
    for game in games:
        fire = wins_in_a_row >= 2
        if game.outcome == "win":
            bonus = game.berserk and game.plies >= BERSERK_MIN_PLIES
            marks.append(Mark(WIN * (2 if fire else 1) + (BERSERK_BONUS if bonus else 0), "win", fire, bonus))
            wins_in_a_row += 1
        else:
            points = LOSS
            if game.outcome == "draw":
                counts = game.plies >= EARLY_DRAW_PLIES and (last != "draw" or game.plies >= DRAW_STREAK_PLIES)
                points = DRAW if counts else 0
            marks.append(Mark(points, game.outcome))
            wins_in_a_row = 0
        last = game.outcome
    return Sheet(score=sum(m.points for m in marks), marks=tuple(marks), on_fire=wins_in_a_row >= 2,
                 performance=performance(games), berserks=sum(1 for g in games if g.berserk))


def performance(games: Sequence[Played]) -> int:
    """The performance rating of ``games`` (0 for none)."""
    if not games:
        return 0
    swing = {"win": PERFORMANCE_SPREAD, "draw": 0, "loss": -PERFORMANCE_SPREAD}
    return round(sum(g.opponent_rating + swing[g.outcome] for g in games) / len(games))


@dataclass(frozen=True)
class Standing:
    rank: int
    player: Hashable
    sheet: Sheet


def standings(players: Sequence[Hashable], sheets: Mapping[Hashable, Sheet]) -> list[Standing]:
    """``players`` (in entry order) ranked by score, then performance; equal on both share a
    rank, listed in entry order. A player with no sheet has played nothing."""
    empty = sheet(())
    order = sorted(range(len(players)), key=lambda i: (-sheets.get(players[i], empty).score,
                                                       -sheets.get(players[i], empty).performance, i))
    rows: list[Standing] = []
    for place, i in enumerate(order, start=1):
        own = sheets.get(players[i], empty)
        tied = rows and (rows[-1].sheet.score, rows[-1].sheet.performance) == (own.score, own.performance)
        rows.append(Standing(rank=rows[-1].rank if tied else place, player=players[i], sheet=own))
    return rows
