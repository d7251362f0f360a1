"""Post-game analysis, the reads: what the replay page, its JSON, the export and the bot API show.

Fair play: nothing of an analysis is read while its match is not finished (the services refuse
to queue one then; this holds even for a row written another way).
"""

from __future__ import annotations

from typing import Any

from games.match.analysis import THRESHOLDS, judge_moves, summarise
from games.match.labels import role_label
from games.models import Analysis, Match
from games.rules import get_game


def analysis_thresholds() -> list[dict[str, Any]]:
    """The marks and the loss (in points of expected score, 0 to 100) from which each applies."""
    return [{"mark": name, "points": round(threshold * 100)} for name, threshold in reversed(THRESHOLDS)]


def analysis_of(*, match: Match) -> dict[str, Any] | None:
    """The analysis of ``match`` (None if none was asked for, or the match is not finished):
    its status and progress (positions evaluated of all); once done, per position each role's
    expected score, the best move found and the line the search expects from it (``line``:
    actions from the best move on, ``[]`` at the end, None in an analysis stored before lines
    were), per move its loss and mark, per role the summary. Two queries."""
    if match.status != Match.Status.FINISHED:
        return None
    analysis = Analysis.objects.filter(match=match).first()
    if analysis is None:
        return None
    game = get_game(match.game)
    out: dict[str, Any] = {
        "status": analysis.status, "done": len(analysis.evaluations), "total": analysis.positions,
        "rounds": analysis.rounds, "roles": list(game.roles), "thresholds": analysis_thresholds(),
    }
    if analysis.status == Analysis.Status.QUEUED:
        out["ahead"] = Analysis.objects.filter(status=Analysis.Status.QUEUED, created_at__lt=analysis.created_at).count()
    if analysis.status == Analysis.Status.FAILED:
        out["error"] = analysis.error
    if analysis.status != Analysis.Status.DONE:
        return out
    evaluations = analysis.evaluations
    moves = list(match.moves.values_list("role", "action"))[:len(evaluations) - 1]
    judged = judge_moves(moves, evaluations)
    for move in judged:
        move["label"] = game.action_label(move["action"])
        move["role_label"] = role_label(move["role"])
        move["better_label"] = game.action_label(move["better"]) if move["better"] else None
    summary = summarise(game.roles, judged)
    for row in summary:
        row["role_label"] = role_label(row["role"])
    out.update(positions=[{"ply": ply, "scores": e["scores"], "best": e["best"], "line": e.get("line")}
                          for ply, e in enumerate(evaluations)],
               moves=judged, summary=summary)
    return out
