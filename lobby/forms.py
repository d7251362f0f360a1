from django import forms

from games.rules import GAMES


class GuestForm(forms.Form):
    display_name = forms.CharField(max_length=30, label="Your name")


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150, label="User name")
    display_name = forms.CharField(max_length=30, required=False, label="Display name")
    password = forms.CharField(widget=forms.PasswordInput, label="Password")


class MatchCreateForm(forms.Form):
    game = forms.ChoiceField(choices=[(g.slug, g.name) for g in GAMES])
    role = forms.CharField(required=False, help_text="the seat to take; empty for a random one")
    private = forms.BooleanField(required=False)
