"""Swiss pairing by the FIDE Dutch system, and Swiss standings: pure (no Django, no database).

The pairing itself is py4swiss's Dutch engine (C.04.3, checked by its authors against
bbpPairings, the pairer lichess runs); this module only translates a tournament's history into
the tournament report (TRF) it reads and its answer back. Players are numbered by their place
in the list given (their entry order, the initial ranking). The first mover plays as white, so
the engine's colour rules balance who moves first.

Each player's history is one ``Slot`` per round already paired: a game (played, or lost by
forfeit), the pairing-allocated bye (1 point, at most once: the engine's rule C.2), a late
joiner's half-point bye, or an absence (0).

    >>> pairing = swiss_pairs(players=["a", "b", "c"], history={}, rounds=3)
    >>> pairing.pairs, pairing.bye
    ([('a', 'b')], 'c')
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from py4swiss.engines import DutchEngine
from py4swiss.engines.common import PairingError
from py4swiss.trf import ParsedTrf
from py4swiss.trf.codes import PlayerCode
from py4swiss.trf.results import ColorToken, ResultToken, RoundResult
from py4swiss.trf.sections import PlayerSection, XSection


class Kind(StrEnum):
    GAME = "game"  # a game that began: 1, 1/2 or 0
    FORFEIT = "forfeit"  # a game one side never began: 1 to the other, 0 to the one who did not move
    BYE = "bye"  # the pairing-allocated bye: 1
    HALF_BYE = "half_bye"  # a late joiner's bye: 1/2
    ABSENT = "absent"  # not paired (not in it yet, or withdrawn): 0


@dataclass(frozen=True)
class Slot:
    """One player's round: ``points`` scored; ``opponent`` and ``first`` (moved first) for a
    game or a forfeit."""

    kind: Kind
    points: float = 0.0
    opponent: Hashable | None = None
    first: bool = False

    def __post_init__(self) -> None:
        if self.points not in (0.0, 0.5, 1.0):
            raise ValueError(f"a round scores 1, 1/2 or 0, not {self.points!r}")
        if (self.opponent is None) != (self.kind not in (Kind.GAME, Kind.FORFEIT)):
            raise ValueError("a game and a forfeit have an opponent; a bye and an absence have none")


@dataclass(frozen=True)
class Pairing:
    pairs: list[tuple[Hashable, Hashable]]  # (first mover, second mover)
    bye: Hashable | None


class NoPairing(ValueError):
    """The round cannot be paired without breaking an absolute rule (two players meeting again,
    a second bye); ``str(err)`` says so."""


def _token(slot: Slot) -> ResultToken:
    if slot.kind == Kind.GAME:
        return {1.0: ResultToken.WIN, 0.5: ResultToken.DRAW, 0.0: ResultToken.LOSS}[slot.points]
    if slot.kind == Kind.FORFEIT:
        return ResultToken.FORFEIT_WIN if slot.points else ResultToken.FORFEIT_LOSS
    return {Kind.BYE: ResultToken.PAIRING_ALLOCATED_BYE, Kind.HALF_BYE: ResultToken.HALF_POINT_BYE,
            Kind.ABSENT: ResultToken.ZERO_POINT_BYE}[slot.kind]


def swiss_pairs(*, players: Sequence[Hashable], history: Mapping[Hashable, Sequence[Slot]], rounds: int,
                absent: Collection[Hashable] = ()) -> Pairing:
    """The next round's pairing of ``players`` (in their initial order) given each one's
    ``history`` (the same number of slots for everyone; a player missing from it has none),
    of a tournament of ``rounds`` rounds. The players in ``absent`` are left out of it.
    Raises ``NoPairing`` when no pairing keeps the absolute rules."""
    number = {player: n for n, player in enumerate(players, start=1)}
    if len(number) != len(players):
        raise ValueError("each player is listed once")
    played = {len(history.get(player, ())) for player in players}
    if len(played) > 1:
        raise ValueError("every player's history covers the same rounds")
    done = played.pop() if played else 0
    if done >= rounds:
        raise ValueError(f"all {rounds} rounds are paired already")
    present = [p for p in players if p not in absent]
    if len(present) < 2:
        raise NoPairing("fewer than two players are left to pair")
    sections = []
    for player in players:
        slots = list(history.get(player, ()))
        results = [RoundResult(id=number[s.opponent] if s.opponent is not None else 0,
                               color=(ColorToken.WHITE if s.first else ColorToken.BLACK)
                               if s.kind in (Kind.GAME, Kind.FORFEIT) else ColorToken.BYE_OR_NOT_PAIRED,
                               result=_token(s)) for s in slots]
        if player in absent:  # a result for the round being paired keeps a player out of it
            results.append(RoundResult(id=0, color=ColorToken.BYE_OR_NOT_PAIRED, result=ResultToken.ZERO_POINT_BYE))
        sections.append(PlayerSection(code=PlayerCode.PLAYER, starting_number=number[player], rank=number[player],
                                      points_times_ten=round(sum(s.points for s in slots) * 10), results=results))
    trf = ParsedTrf(player_sections=sections, x_section=XSection(number_of_rounds=rounds))
    trf.validate_contents()
    try:
        found = DutchEngine.generate_pairings(trf)
    except PairingError as err:
        raise NoPairing("no pairing of this round keeps every player from meeting an opponent again") from err
    pairs, bye = [], None
    for pairing in found:
        if pairing.black == 0:
            bye = players[pairing.white - 1]
        else:
            pairs.append((players[pairing.white - 1], players[pairing.black - 1]))
    return Pairing(pairs=pairs, bye=bye)


@dataclass(frozen=True)
class Standing:
    rank: int
    player: Hashable
    score: float
    buchholz: float  # the scores of the opponents met in games that began
    sonneborn_berger: float  # the scores of those beaten, plus half the scores of those drawn with
    played: int


def swiss_standings(players: Sequence[Hashable], history: Mapping[Hashable, Sequence[Slot]]) -> list[Standing]:
    """The players ranked by score, then Buchholz, then Sonneborn-Berger (equal on all three:
    the same rank), then initial order. Byes, absences and forfeits add to the score only, not
    to the tie-breaks (only games that began measure the opposition)."""
    score = {p: sum(s.points for s in history.get(p, ())) for p in players}
    buchholz, berger, played = dict.fromkeys(players, 0.0), dict.fromkeys(players, 0.0), dict.fromkeys(players, 0)
    for player in players:
        for slot in history.get(player, ()):
            if slot.kind == Kind.GAME:
                opponent = score.get(slot.opponent, 0.0)
                buchholz[player] += opponent
                berger[player] += slot.points * opponent
                played[player] += 1
    return ranked(players, score, buchholz, berger, played)


def ranked(players: Sequence[Hashable], score: Mapping[Hashable, float], buchholz: Mapping[Hashable, float],
           berger: Mapping[Hashable, float], played: Mapping[Hashable, int]) -> list[Standing]:
    """``players`` in standing order: by score, then Buchholz, then Sonneborn-Berger (equal on
    all three: the same rank), then the order given."""
    order = sorted(range(len(players)),
                   key=lambda i: (-score[players[i]], -buchholz[players[i]], -berger[players[i]], i))
    rows: list[Standing] = []
    for place, i in enumerate(order, start=1):
        p = players[i]
        tied = rows and (rows[-1].score, rows[-1].buchholz, rows[-1].sonneborn_berger) == (score[p], buchholz[p],
                                                                                           berger[p])
        rows.append(Standing(rank=rows[-1].rank if tied else place, player=p, score=score[p], buchholz=buchholz[p],
                             sonneborn_berger=berger[p], played=played[p]))
    return rows
