"""Drawing data for small server-drawn SVG charts (pure): a rating history, an analysis's evaluation graph."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from games.match.labels import role_label

WIDTH, HEIGHT, PAD = 320, 120, 8


def rating_chart(points: Sequence[tuple[datetime, int]], start: int) -> dict[str, Any]:
    """Drawing data for ``points`` (when, rating after that match), oldest first, from the
    rating ``start`` before the first: SVG ``polyline`` points spread evenly by match (a busy
    day would otherwise be a vertical smear), the lowest and highest ratings for the labels."""
    values = [start, *(rating for _, rating in points)]
    low, high = min(values), max(values)
    span = max(high - low, 1)
    step = (WIDTH - 2 * PAD) / max(len(values) - 1, 1)
    coords = [(PAD + i * step, PAD + (high - v) * (HEIGHT - 2 * PAD) / span) for i, v in enumerate(values)]
    return {"width": WIDTH, "height": HEIGHT, "low": low, "high": high, "games": len(points),
            "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in coords),
            "last": {"x": round(coords[-1][0], 1), "y": round(coords[-1][1], 1)},
            "first_date": points[0][0] if points else None, "last_date": points[-1][0] if points else None}


GRAPH_WIDTH, GRAPH_HEIGHT, GRAPH_PAD = 600, 150, 6
GRAPH_AXIS = 24  # the left margin that holds the y axis's labels


def evaluation_chart(roles: Sequence[str], positions: Sequence[dict[str, Any]],
                     moves: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Drawing data for the evaluation graph of an analysis: per role a ``polyline`` of its
    expected score (0 at the bottom, 1 at the top) over the positions, left to right, right of
    the y axis's labels (``ticks``: 0, 50 and 100); a dot for each marked move, on its mover's
    line after it; and per position a column to click (the page jumps to that position), ``x``
    its left edge, whose ``title`` (shown on hover) names the position and each role's expected
    score there in points: "Move 12 (X b3): X 64, O 36"."""
    step = (GRAPH_WIDTH - GRAPH_AXIS - 2 * GRAPH_PAD) / max(len(positions) - 1, 1)

    def x(ply: int) -> float:
        return round(GRAPH_AXIS + GRAPH_PAD + ply * step, 1)

    def y(score: float) -> float:
        return round(GRAPH_PAD + (1.0 - score) * (GRAPH_HEIGHT - 2 * GRAPH_PAD), 1)

    def title(position: dict[str, Any]) -> str:
        ply = position["ply"]
        where = f"Move {ply} ({moves[ply - 1]['role_label']} {moves[ply - 1]['label']})" if ply else "Start"
        scores = ", ".join(f"{role_label(role)} {round(position['scores'][role] * 100)}" for role in roles)
        return f"{where}: {scores}"

    lines = [{"role": role, "index": i, "points": " ".join(f"{x(p['ply'])},{y(p['scores'][role])}" for p in positions)}
             for i, role in enumerate(roles)]
    dots = [{"ply": m["ply"], "mark": m["mark"], "x": x(m["ply"]), "y": y(positions[m["ply"]]["scores"][m["role"]])}
            for m in moves if m["mark"] and m["ply"] < len(positions)]
    columns = [{"ply": p["ply"], "x": round(max(x(p["ply"]) - step / 2, GRAPH_AXIS), 1),
                "width": round(step, 1), "title": title(p)}
               for p in positions]
    ticks = [{"label": points, "y": y(points / 100)} for points in (100, 50, 0)]
    return {"width": GRAPH_WIDTH, "height": GRAPH_HEIGHT, "axis": GRAPH_AXIS, "ticks": ticks, "lines": lines,
            "dots": dots, "columns": columns}
