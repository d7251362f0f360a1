"""The settings a match is made with, as one small value: what quick pairing matches on and
what a challenge proposes. ``match_create`` takes it; a rematch keeps it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.rules import get_game


@dataclass(frozen=True)
class MatchSettings:
    """``game``: a rule set's slug; ``rated``: the result changes the players' ratings;
    ``time_control``: untimed, real time or correspondence (``games.match.clocks``)."""

    game: str
    rated: bool = False
    time_control: TimeControl = TimeControl()

    def __post_init__(self) -> None:
        try:
            get_game(self.game)
        except KeyError:
            raise ServiceError("unknown_game", f"There is no game called {self.game!r}.") from None

    def pool_key(self) -> str:
        """Players wait together only for the same settings: the key of their pool."""
        return f"{self.game}|{'rated' if self.rated else 'casual'}|{self.time_control.code}"

    def to_json(self) -> dict[str, Any]:
        """The settings as the site socket and the stored pool entries and challenges carry them."""
        return {"game": self.game, "rated": self.rated, "clock": self.time_control.code}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchSettings:
        """The settings of ``to_json`` (``clock`` a ``TimeControl`` code); a clock that is not
        one is refused as ``unknown_clock``."""
        try:
            time_control = TimeControl.parse(data.get("clock", "untimed"))
        except ValueError as err:
            raise ServiceError("unknown_clock", str(err)) from None
        return cls(game=data["game"], rated=data["rated"], time_control=time_control)

    @classmethod
    def of_match(cls, match) -> MatchSettings:
        return cls(game=match.game, rated=match.rated, time_control=TimeControl.of(match))
