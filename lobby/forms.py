from django import forms

from games.computer import LEVELS
from games.rules import GAMES


class GuestForm(forms.Form):
    display_name = forms.CharField(max_length=30, label="Your name")


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150, label="User name")
    display_name = forms.CharField(max_length=30, required=False, label="Display name")
    password = forms.CharField(widget=forms.PasswordInput, label="Password")


def roles_by_game() -> dict[str, list[str]]:
    """The seats of every game, in turn order: the lobby narrows the seat list to the chosen game."""
    return {g.slug: list(g.roles) for g in GAMES}


class MatchCreateForm(forms.Form):
    game = forms.ChoiceField(choices=[(g.slug, g.name) for g in GAMES])
    role = forms.ChoiceField(required=False, label="Your seat",
                             choices=[("", "Random seat")] + sorted({(r, r) for g in GAMES for r in g.roles}))
    opponents = forms.ChoiceField(
        required=False, initial="people", widget=forms.RadioSelect, label="Play against",
        choices=[("people", "People: wait for them to join"), ("computer", "The computer: start at once")])
    computer_level = forms.TypedChoiceField(
        required=False, coerce=int, empty_value=2, initial=2, label="Its strength",
        choices=[(level, name) for level, (name, _) in enumerate(LEVELS, start=1)])
    private = forms.BooleanField(required=False, label="Private (only people with the invite link)")

    def clean(self):
        data = super().clean()
        game, role = data.get("game"), data.get("role")
        if game and role and role not in roles_by_game()[game]:
            self.add_error("role", f"That game has no seat {role}.")
        return data
