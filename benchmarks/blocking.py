"""How often the plain UCT baseline blocks a four that lacks one cell, in the three-player game.

The expert's search takes the other roles to block such a four (each plays for first place);
the baseline plays for its GGP score, in which a three is worth 66 whoever makes four. This
measures what it does: positions of ``--plies`` random moves (4 to 9; nobody can complete a
four, the game not over), in which the mover makes a move that leaves it exactly one cell from a
four and threatens nothing else; then the next mover's choice by a plain UCT of ``--rounds``
rounds (about one second's worth at the benchmark's load: 4,000), and, after that mover plays a
random move that neither blocks nor threatens, the following mover's choice (the last one who
can block before the four is made). Prints each case as it goes and the block rates, with the
share of blockers that already held a three. Standard library only; not a test:

    python3 benchmarks/blocking.py --positions 100 --rounds 4000 --seed 2
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.strength import wilson  # noqa: E402
from benchmarks.uct import uct_move  # noqa: E402
from games.rules import get_game  # noqa: E402

GAME = get_game("tictactoe-3player")


def completions(state, who: int) -> set[int]:
    """The empty cells that would complete a four for role index ``who``."""
    mine, cells = state.masks[who], set()
    for window in GAME.fours:
        if (window & mine).bit_count() == 3 and not window & ~mine & state.occupied:
            cells.add((window & ~mine).bit_length() - 1)
    return cells


def cell_of(state, action: str) -> int:
    after = GAME.play(state, GAME.to_move(state), action)
    return (after.occupied & ~state.occupied).bit_length() - 1


def a_threat(rng: random.Random):
    """A position whose last move left its mover one cell from a four (and no other role able
    to complete one), with that cell; None when the random game gave none."""
    state = GAME.initial_state()
    for _ in range(rng.randrange(4, 10)):
        state = GAME.play(state, GAME.to_move(state), rng.choice(GAME.legal_actions(state)))
        if GAME.is_terminal(state):
            return None
    if any(completions(state, who) for who in range(3)):
        return None
    mover = state.ply % 3
    threats = []
    for action in GAME.legal_actions(state):
        after = GAME.play(state, GAME.to_move(state), action)
        cells = completions(after, mover)
        if len(cells) == 1 and not any(completions(after, (mover + k) % 3) for k in (1, 2)):
            threats.append((after, cells))
    return rng.choice(threats) if threats else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    # blocked, asked, blockers already holding a three, blockers that made a three instead of blocking
    tally = {"next": [0, 0, 0, 0], "after it": [0, 0, 0, 0]}
    found = 0
    while found < args.positions:
        threat = a_threat(rng)
        if threat is None:
            continue
        found += 1
        state, cells = threat
        maker = (state.ply - 1) % 3
        choices = {"next": state}
        quiet = [a for a in GAME.legal_actions(state) if cell_of(state, a) not in cells
                 and not completions(GAME.play(state, GAME.to_move(state), a), (maker + 1) % 3)]
        if quiet:
            later = GAME.play(state, GAME.to_move(state), rng.choice(quiet))
            if not GAME.is_terminal(later):
                choices["after it"] = later
        line = []
        for who, position in choices.items():
            blocker = position.ply % 3
            move = uct_move(GAME, position, seconds=None, rng=rng, rounds=args.rounds)
            blocked = cell_of(position, move) in cells
            count = tally[who]
            count[0] += blocked
            count[1] += 1
            held = GAME._has_three(position.masks[blocker])
            count[2] += held
            after = GAME.play(position, GAME.to_move(position), move)
            count[3] += not blocked and not held and GAME._has_three(after.masks[blocker])
            line.append(f"{who}: {'blocked' if blocked else move}")
        print(f"{found}: ply {state.ply}, " + "; ".join(line), flush=True)
    print(f"\n{args.rounds} rounds a move, {args.positions} positions (seed {args.seed})")
    print("| mover after the four's maker | blocked | of | rate | Wilson 95% | blockers holding a three "
          "| made a three instead |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: |")
    for who, (blocked, asked, holding, instead) in tally.items():
        low, high = wilson(blocked, asked) if asked else (0.0, 0.0)
        print(f"| {who} | {blocked} | {asked} | {blocked / max(asked, 1):.0%} | {low:.0%} to {high:.0%} | {holding} "
              f"| {instead} |")


if __name__ == "__main__":
    main()
