"""A seat that does not play its turns in a rated match: when the match stops waiting for it.
Plain values, no database.

Per move (the GGP way) a turn a seat does not play is played in its place at random and the
match goes on (``games.services.replaced``): a GGP player's answer late, not legal or missing,
a person's play clock run out. In a casual match that stays so, as GGP game managers do. In a
rated one it let a program that never plays (or a person gone for good) be beaten at random
match after match, so a rated match ends as lichess ends a game with a player who does not move:

- a seat whose first ``FIRST_TURNS`` turns were all played in its place never began the match:
  it is called off, nobody rated (lichess aborts a game whose player never moves). Two, not
  one: a single slip (a first answer a little late) does not void a match both sides wanted;
- a seat that has played moves of its own and then has ``IN_A_ROW`` turns in a row played in
  its place has left: it loses on time (lichess: a player who stops moving loses on time). A
  slow or faulty answer now and then stays a random move, as before.

A turn is a seat's consecutive plies (Quarto's choosing and placing: two PLAYs, one clock),
its own if any of them is. A ply whose answer the server itself lost (a restarted worker, or
the flag on a GGP seat's turn its manager could not judge: ``ReplacedMove`` ``lost``) is not the
player's doing: it is left out of those counts, neither a move of its own nor a miss. Nor may
the server play a seat's turns at random to the end of a rated match (its GGP game manager down
for good): the ``SERVER_LOST``th turn of a seat whose answer the server lost, in a row or not,
calls the match off instead, nobody rated: the server spoilt it (lichess does not rate a game
its server damaged).
"""

from __future__ import annotations

from collections.abc import Sequence

FIRST_TURNS = 2
IN_A_ROW = 3
SERVER_LOST = 3

OWN = ""  # a ply's reason: a move of its own
LOST = "lost"  # a ply's reason: the server lost its answer (any other reason: a miss)

PLAY_ON = ""
NEVER_BEGAN = "never_began"
LEFT = "left"
SERVER_FAILED = "server_failed"


def verdict(plies: Sequence[tuple[int, str]]) -> str:
    """What a rated match does when a seat's ply is about to be played in its place, given
    ``plies``: the seat's plies in order, each (its number, its reason: ``OWN``, ``LOST`` or a
    miss, as ``ReplacedMove.reason``), that one last. ``PLAY_ON`` (play it at random),
    ``NEVER_BEGAN`` or ``SERVER_FAILED`` (call the match off) or ``LEFT`` (the seat loses on time).

    >>> verdict([(2, "late")])
    ''
    >>> verdict([(2, "late"), (4, "silent")])
    'never_began'
    >>> verdict([(1, "late"), (2, "late")])  # one turn of two plies (Quarto)
    ''
    >>> verdict([(2, OWN), (4, "late"), (6, "illegal"), (8, "late")])
    'left'
    >>> verdict([(2, OWN), (4, "late"), (6, OWN), (8, "late")])
    ''
    >>> verdict([(2, OWN), (4, LOST), (6, LOST)])
    ''
    >>> verdict([(2, OWN), (4, LOST), (6, LOST), (8, LOST)])
    'server_failed'
    """
    if plies[-1][1] == LOST:
        lost = _turns([(ply, False) for ply, reason in plies if reason == LOST])
        return SERVER_FAILED if len(lost) >= SERVER_LOST else PLAY_ON
    turns = _turns([(ply, reason == OWN) for ply, reason in plies if reason != LOST])
    if not any(turns):
        return NEVER_BEGAN if len(turns) >= FIRST_TURNS else PLAY_ON
    missed = len(turns) - 1 - max(i for i, own in enumerate(turns) if own)
    return LEFT if missed >= IN_A_ROW else PLAY_ON


def _turns(plies: Sequence[tuple[int, bool]]) -> list[bool]:
    """``plies`` (each: its number, a move of its own?) as turns of consecutive plies, each: a
    move of its own in it?"""
    turns: list[bool] = []
    for i, (ply, own) in enumerate(plies):
        if i and ply == plies[i - 1][0] + 1:
            turns[-1] = turns[-1] or own
        else:
            turns.append(own)
    return turns
