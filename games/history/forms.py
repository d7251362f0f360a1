"""Input parsing for the history pages."""

from django import forms
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from games.history.selectors import HistoryFilters
from games.history.services import IMPORT_MAX_BYTES, IMPORT_TOO_LARGE
from games.match import guide
from games.match.text import name_key
from games.models import Outcome

# A seat's result as the filter offers it (the codes of ``Outcome``).
OUTCOMES = [(Outcome.WON, pgettext_lazy("outcome", "won")), (Outcome.DRAWN, pgettext_lazy("outcome", "drawn")),
            (Outcome.LOST, pgettext_lazy("outcome", "lost"))]
NO_SUCH_PLAYER = gettext_lazy("There is no such player: showing every player's matches.")
NAME_MAX = 30  # a display name's length (lobby.models.User.display_name)
DATE_ERRORS = {"invalid": gettext_lazy("Enter a date as YYYY-MM-DD, for example 2026-03-01.")}


class HistoryFilterForm(forms.Form):
    """The GET filters of the history list. Invalid values are reported and ignored (a player
    filter naming nobody too: ``no_such_player``, once the view has looked)."""

    game = forms.ChoiceField(required=False, choices=[])
    player = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput,
                                error_messages=dict.fromkeys(["invalid", "min_value", "max_value"], NO_SUCH_PLAYER))
    result = forms.ChoiceField(required=False, choices=[("", gettext_lazy("any result")), *OUTCOMES],
                               label=gettext_lazy("Result for the player"))
    name = forms.CharField(required=False, max_length=NAME_MAX, label=gettext_lazy("Player's name starts with"), strip=True)
    opponent = forms.CharField(required=False, max_length=NAME_MAX, label=gettext_lazy("Opponent's name starts with"), strip=True)
    tournament = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput,
                                    error_messages=dict.fromkeys(["invalid", "min_value", "max_value"],
                                                                 gettext_lazy("That is not a tournament's number: the filter is left out.")))
    since = forms.DateField(required=False, label=gettext_lazy("Finished from"), input_formats=["%Y-%m-%d"],
                            error_messages=DATE_ERRORS, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, label=pgettext_lazy("dates", "to"), input_formats=["%Y-%m-%d"],
                            error_messages=DATE_ERRORS, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [("", gettext_lazy("all games")), *guide.game_choices()]

    def clean(self):
        data = super().clean()
        if data.get("result") and not (data.get("player") or data.get("name")):
            self.add_error("result", gettext("Pick a player first (type a name, or click one in the list) "
                                             "to filter by their result."))
        since, until = data.get("since"), data.get("until")
        if since and until and until < since:
            self.add_error("until", gettext("The last day comes before the first: swap them."))
        return data

    def no_such_player(self) -> None:
        """The player filter names a number nobody has: reported, and no longer applied."""
        self.add_error("player", NO_SUCH_PLAYER)

    def filters(self) -> HistoryFilters:
        data = self.cleaned_data if self.is_bound and hasattr(self, "cleaned_data") else {}
        return HistoryFilters(game=data.get("game") or None, player_id=data.get("player"),
                              result=data.get("result") or None, name=_searchable(data.get("name")),
                              opponent=_searchable(data.get("opponent")), since=data.get("since"),
                              until=data.get("until"), tournament_id=data.get("tournament"))


def _searchable(typed: str | None) -> str | None:
    """A typed name's start, or None when nothing is left of it to compare (spaces only)."""
    return typed if typed and name_key(typed) else None


class ImportForm(forms.Form):
    file = forms.FileField(label="GGP match file (.json)")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > IMPORT_MAX_BYTES:
            raise forms.ValidationError(IMPORT_TOO_LARGE)
        return upload
