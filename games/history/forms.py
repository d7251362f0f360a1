"""Input parsing for the history pages."""

from django import forms

from games.history.selectors import HistoryFilters
from games.history.services import IMPORT_MAX_BYTES, IMPORT_TOO_LARGE
from games.models import Outcome
from games.rules import GAMES


NO_SUCH_PLAYER = "There is no such player: showing every player's matches."


class HistoryFilterForm(forms.Form):
    """The GET filters of the history list. Invalid values are reported and ignored (a player
    filter naming nobody too: ``no_such_player``, once the view has looked)."""

    game = forms.ChoiceField(required=False, choices=[])
    player = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput,
                                error_messages=dict.fromkeys(["invalid", "min_value", "max_value"], NO_SUCH_PLAYER))
    result = forms.ChoiceField(required=False, choices=[("", "any result"), *Outcome.choices],
                               label="Result for the player")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [("", "all games"), *((g.slug, g.name) for g in GAMES)]

    def clean(self):
        data = super().clean()
        if data.get("result") and not data.get("player"):
            self.add_error("result", "Pick a player first (click a name in the list) to filter by their result.")
        return data

    def no_such_player(self) -> None:
        """The player filter names a number nobody has: reported, and no longer applied."""
        self.add_error("player", NO_SUCH_PLAYER)

    def filters(self) -> HistoryFilters:
        data = self.cleaned_data if self.is_bound and hasattr(self, "cleaned_data") else {}
        return HistoryFilters(game=data.get("game") or None, player_id=data.get("player"),
                              result=data.get("result") or None)


class ImportForm(forms.Form):
    file = forms.FileField(label="GGP match file (.json)")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > IMPORT_MAX_BYTES:
            raise forms.ValidationError(IMPORT_TOO_LARGE)
        return upload
