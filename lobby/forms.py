from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.computer.search import LEVELS
from games.match import clocks, guide
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.rules import GAMES


class GuestForm(forms.Form):
    display_name = forms.CharField(max_length=30, label=_("Your name"))


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150, label=_("User name"))
    display_name = forms.CharField(max_length=30, required=False, label=_("Display name"))
    password = forms.CharField(widget=forms.PasswordInput, label=_("Password"))


class _UsernameLengthChecked:
    """For Django's sign-in forms: a user name longer than any account's is refused with the
    form's message before the database is asked. Django sets the field's ``max_length`` after
    building it, so no validator held it, and 50,000 characters reached SQLite as a LIKE pattern
    (``Users.get_by_natural_key``) that it refuses as too complex: the outage page."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.validators.append(MaxLengthValidator(username.max_length))


class LoginForm(_UsernameLengthChecked, AuthenticationForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The site's own words for the two fields (Django's label is the model's "username").
        self.fields["username"].label = _("User name")
        self.fields["password"].label = _("Password")


class AdminLoginForm(_UsernameLengthChecked, AdminAuthenticationForm):
    pass


def roles_by_game() -> dict[str, list[str]]:
    """The seats of every game, in turn order: the lobby narrows the seat list to the chosen game."""
    return {g.slug: list(g.roles) for g in GAMES}


def seat_choices(game: str) -> list[tuple[str, str]]:
    """The seat list of one rule set, as the lobby's script draws it: "X (first to move)", ..."""
    ordinals = (gettext("%(seat)s (first to move)"), gettext("%(seat)s (second to move)"),
                gettext("%(seat)s (third to move)"))
    return [("", gettext("Random seat"))] + [(role, ordinals[index] % {"seat": guide.seat_words(role)})
                                             for index, role in enumerate(roles_by_game().get(game, []))]


# The computer's levels in words (games.computer.search.LEVELS keeps the English, by name).
LEVEL_NAMES = {"easy": pgettext_lazy("computer level", "Easy"), "medium": pgettext_lazy("computer level", "Medium"),
               "strong": pgettext_lazy("computer level", "Strong"), "expert": pgettext_lazy("computer level", "Expert")}


class LevelSelect(forms.Select):
    """The computer's levels by name, each option carrying its description (``data-description``),
    which the page shows below the select, in the element ``<select id>-description`` that
    describes it: the names keep the select narrow on a phone."""

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        context["widget"]["attrs"]["aria-describedby"] = f"{context['widget']['attrs']['id']}-description"
        return context

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        option["attrs"]["data-description"] = LEVELS[int(value) - 1].description
        return option


class ComputerLevelForm(forms.Form):
    """The computer's strength, 1 to 4 (``LEVELS``); medium unless chosen."""

    computer_level = forms.TypedChoiceField(
        required=False, coerce=int, empty_value=2, initial=2, label=_("Its strength"), widget=LevelSelect,
        choices=[(number, LEVEL_NAMES[level.name]) for number, level in enumerate(LEVELS, start=1)])

    def level_description(self) -> str:
        """What the level the form shows does, for the page's first paint."""
        by_number = {str(number): level for number, level in enumerate(LEVELS, start=1)}
        return by_number.get(str(self["computer_level"].value()), LEVELS[1]).description

    @classmethod
    def choices_in(cls, data) -> dict:
        """The valid choices among ``data`` (a query string), to show the form with them: a
        refused form comes back as the player left it, and a link may preselect
        (``/?opponents=computer``, ``/?game=quarto-misere#play-computer``). Anything else in
        ``data`` is left out."""
        kept = {}
        for name, field in cls.base_fields.items():
            if name in data:
                try:
                    kept[name] = field.clean(data[name])
                except ValidationError:
                    pass
        return kept


class ComputerPlayForm(ComputerLevelForm):
    """Play the computer at once, from the home page: the rule set (the first, Nine-Board
    Tic-Tac-Toe, unless chosen) and the level; the match is untimed and casual, the seat random."""

    game = forms.ChoiceField(choices=guide.game_choices, initial=GAMES[0].slug, label=_("Game"))

    def match_settings(self) -> MatchSettings:
        return MatchSettings(game=self.cleaned_data["game"])


class MatchCreateForm(ComputerLevelForm):
    """A new match. The seat field takes a seat of any rule set (``clean`` checks it is one of the
    chosen one's); shown, it lists the chosen rule set's seats only."""

    game = forms.ChoiceField(choices=guide.game_choices)
    role = forms.ChoiceField(required=False, label=_("Your seat"),
                             choices=[("", _("Random seat"))] + sorted({(r, r) for g in GAMES for r in g.roles}))
    opponents = forms.ChoiceField(
        required=False, initial="people", widget=forms.RadioSelect, label=_("Play against"),
        choices=[("people", _("People: wait for them to join")), ("computer", _("The computer: start at once"))])
    private = forms.BooleanField(required=False, label=_("Private (only people with the invite link)"))
    rated = forms.BooleanField(required=False, label=_("Rated (signed-up players only; the result changes ratings)"))
    clock = forms.ChoiceField(required=False, initial="untimed", label=_("Time control"),
                              choices=lambda: clocks.choices() + [("custom", gettext("Real time: custom"))])
    clock_minutes = forms.IntegerField(required=False, initial=5, label=_("Minutes each"),
                                       min_value=clocks.MIN_BASE_MINUTES, max_value=clocks.MAX_BASE_MINUTES)
    clock_increment = forms.IntegerField(required=False, initial=3, label=_("Seconds added per move"),
                                         min_value=0, max_value=clocks.MAX_INCREMENT_SECONDS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.fields["role"].choices = seat_choices(self["game"].value() or GAMES[0].slug)

    def base_game(self) -> str:
        """The game whose rule set (itself or a variant) the form shows chosen."""
        return {g.slug: g.variant_of or g.slug for g in GAMES}.get(self["game"].value(), GAMES[0].slug)

    def match_settings(self) -> MatchSettings:
        return MatchSettings(game=self.cleaned_data["game"], rated=self.cleaned_data["rated"],
                             time_control=self.cleaned_data["time_control"])

    def clean(self):
        data = super().clean()
        game, role = data.get("game"), data.get("role")
        if game and role and role not in roles_by_game()[game]:
            self.add_error("role", gettext("That game has no seat %(seat)s.") % {"seat": role})
        code = data.get("clock") or "untimed"
        if code == "custom":
            code = f"{data.get('clock_minutes') or 0}+{data.get('clock_increment') or 0}"
        try:
            data["time_control"] = TimeControl.parse(code)
        except ValueError as err:
            self.add_error("clock", str(err))
        return data


class FriendPlayForm(forms.Form):
    """Play with a friend, from the home page: a private match of the rule set, time control and
    seat chosen (by turn order, so one list serves every game), whose invite link the creator
    sends; a visitor may give a name (else they play as a guest with a generated one)."""

    SEATS = [("", _("Random")), ("1", _("Move first")), ("2", _("Move second")),
             ("3", _("Move third (three-player games)"))]

    # Labels of their own: the lobby's other forms have a "Game", a "Time control", a "Your seat".
    game = forms.ChoiceField(choices=guide.game_choices, initial=GAMES[0].slug, label=_("Game to play"))
    clock = forms.ChoiceField(required=False, initial="untimed", label=_("Clock"), choices=clocks.choices)
    seat = forms.ChoiceField(required=False, choices=SEATS, label=_("Seat"))
    display_name = forms.CharField(required=False, max_length=30, label=_("Your name (optional)"))

    def clean(self):
        data = super().clean()
        game = data.get("game")
        if game:
            roles = roles_by_game()[game]
            seat = data.get("seat") or ""
            if seat and int(seat) > len(roles):
                self.add_error("seat", ngettext("That game has %(count)d seat.", "That game has %(count)d seats.",
                                                len(roles)) % {"count": len(roles)})
            else:
                data["role"] = roles[int(seat) - 1] if seat else None
        try:
            data["time_control"] = TimeControl.parse(data.get("clock") or "untimed")
        except ValueError as err:
            self.add_error("clock", str(err))
        return data

    def match_settings(self) -> MatchSettings:
        return MatchSettings(game=self.cleaned_data["game"], time_control=self.cleaned_data["time_control"])
