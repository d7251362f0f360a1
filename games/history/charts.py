"""A rating history as drawing data for a small server-drawn SVG line chart (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

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
