"""The tournament creation form: parses what a person typed into the service's arguments."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.utils import timezone

from games.match import clocks
from games.match.clocks import TimeControl
from games.rules import GAMES
from tournaments import arena, services
from tournaments.models import Tournament

STARTS_IN_MAX_MINUTES = services.STARTS_WITHIN_DAYS * 24 * 60
# The format field's values for an arena and a Swiss (the others: how many times everyone meets).
ARENA = 0
SWISS = -1


def clock_choices() -> list[tuple[str, str]]:
    """The time controls a tournament can use: every match time control but per move (GGP)."""
    return [(code, label) for code, label in clocks.choices() if TimeControl.parse(code).kind != "per_move"]


class TournamentCreateForm(forms.Form):
    name = forms.CharField(max_length=services.NAME_MAX)
    game = forms.ChoiceField(label="Game", choices=[(g.slug, g.name) for g in GAMES if len(g.roles) in (2, 3)])
    cycles = forms.TypedChoiceField(label="Format", coerce=int, initial=1, choices=[
        (1, "Round robin: everyone meets once"), (2, "Double round robin: everyone meets twice, both moving first"),
        (SWISS, "Swiss: a set number of rounds, each player against one of about the same score"),
        (ARENA, "Arena: for a set time, paired again as soon as a game ends (real time)")])
    rounds = forms.IntegerField(required=False, initial=5, min_value=services.SWISS_ROUNDS_MIN,
                                max_value=services.SWISS_ROUNDS_MAX, label="A Swiss's rounds")
    minutes = forms.IntegerField(required=False, initial=30, min_value=arena.MINUTES_MIN, max_value=arena.MINUTES_MAX,
                                 label="An arena lasts (minutes)")
    clock = forms.ChoiceField(label="Time control", initial="5+3", choices=clock_choices)
    starts_in = forms.IntegerField(required=False, initial=10, min_value=1, max_value=STARTS_IN_MAX_MINUTES,
                                   label="Starts in (minutes)")
    starts_at = forms.DateTimeField(required=False, label="Or starts at (UTC: YYYY-MM-DD HH:MM)",
                                    input_formats=["%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M"])
    rated = forms.BooleanField(required=False, label="Rated (the results change ratings)")
    private = forms.BooleanField(required=False, label="Private (only people with the invite link)")
    min_players = forms.IntegerField(initial=2, min_value=services.PLAYERS_MIN, max_value=services.PLAYERS_MAX,
                                     label="The least players")
    max_players = forms.IntegerField(initial=8, min_value=services.PLAYERS_MIN, label="The most players",
                                     max_value=max(services.SWISS_PLAYERS_MAX, arena.PLAYERS_MAX))  # each format checks its own
    password = forms.CharField(required=False, max_length=services.PASSWORD_MAX, strip=False,
                               widget=forms.PasswordInput(render_value=True),
                               label="Password (a private one: joining asks for it, unless one has the invite link)")

    def clean(self):
        data = super().clean()
        if data.get("starts_at"):
            data["start"] = data["starts_at"]
        elif data.get("starts_in"):
            data["start"] = timezone.now() + timedelta(minutes=data["starts_in"])
        elif "starts_in" not in self.errors and "starts_at" not in self.errors:
            self.add_error("starts_in", "Say when it starts: in how many minutes, or at what date and time.")
        if "clock" in data:
            data["time_control"] = TimeControl.parse(data["clock"])
        if data.get("cycles") == SWISS and not data.get("rounds") and "rounds" not in self.errors:
            self.add_error("rounds", "Say how many rounds the Swiss has.")
        if data.get("cycles") == ARENA and not data.get("minutes") and "minutes" not in self.errors:
            self.add_error("minutes", "Say how many minutes the arena lasts.")
        return data

    @property
    def is_arena(self) -> bool:
        return self.cleaned_data["cycles"] == ARENA

    def service_arguments(self) -> dict:
        data = self.cleaned_data
        if self.is_arena:
            return {"name": data["name"], "game": data["game"], "time_control": data["time_control"],
                    "starts_at": data["start"], "rated": data["rated"], "is_private": data["private"],
                    "max_players": data["max_players"], "minutes": data["minutes"]}
        return {"name": data["name"], "game": data["game"], "time_control": data["time_control"],
                "starts_at": data["start"], "rated": data["rated"], "is_private": data["private"],
                "min_players": data["min_players"], "max_players": data["max_players"], "cycles": data["cycles"],
                **self._swiss_arguments()}

    def _swiss_arguments(self) -> dict:
        data = self.cleaned_data
        password = {"password": data["password"]} if data.get("password") else {}
        if data["cycles"] != SWISS:
            return password
        return {"cycles": 1, "tournament_format": Tournament.Format.SWISS, "rounds": data["rounds"], **password}
