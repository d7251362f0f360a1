"""``{% tournament_link match.pk %}``: on a tournament game's match page, the way back to its
tournament (the games app's pages know nothing of tournaments; the template asks here)."""

from django import template
from django.urls import reverse
from django.utils.html import format_html

from tournaments import selectors

register = template.Library()


@register.simple_tag
def tournament_link(match_id: int) -> str:
    tournament = selectors.tournament_of_match(match_id)
    if tournament is None:
        return ""
    return format_html('<p class="hint" id="tournament-link">A game of the tournament <a href="{}">{}</a></p>',
                       reverse("tournaments:page", args=[tournament.pk]), tournament.name)
