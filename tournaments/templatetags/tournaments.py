"""``{% tournament_link match.pk %}``: on a tournament game's match page, the way back to its
tournament (the games app's pages know nothing of tournaments; the template asks here); in an
arena game, for its player before the game has begun, the Berserk button too."""

from django import template
from django.middleware.csrf import get_token
from django.urls import reverse
from django.utils.html import format_html

from tournaments import arena_scoring, selectors

register = template.Library()


@register.simple_tag(takes_context=True)
def tournament_link(context, match_id: int) -> str:
    game = selectors.tournament_game_of_match(match_id)
    if game is None:
        return ""
    tournament = game.tournament
    link = format_html('<p class="hint" id="tournament-link">A game of the tournament <a href="{}">{}</a></p>',
                       reverse("tournaments:page", args=[tournament.pk]), tournament.name)
    request, match, user = context.get("request"), context.get("match"), context.get("user")
    if (request is None or match is None or user is None or not user.is_authenticated
            or tournament.format != tournament.Format.ARENA or match.status != "active" or match.plies >= 2):
        return link
    berserk = {game.first_id: game.berserk_first, game.second_id: game.berserk_second}.get(user.pk)
    if berserk is None or berserk:
        return link
    return link + format_html(
        '<form method="post" action="{}" id="berserk-form" class="inline-form">'
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}"><input type="hidden" name="back" value="{}">'
        '<button type="submit" class="button button--secondary" title="Halve your own clock before your first move: '
        'a win of at least {} moves scores 1 more">Berserk</button></form>',
        reverse("tournaments:berserk", args=[tournament.pk, match_id]), get_token(request), request.get_full_path(),
        arena_scoring.BERSERK_MIN_PLIES)
