"""The follow and block buttons of a player's page (``templates/social/_player_actions.html``)."""

from django import template

from social import selectors

register = template.Library()


@register.simple_tag(takes_context=True)
def social_relation(context, player) -> dict[str, bool]:
    """What the page's viewer chose about ``player``: following, blocking."""
    return selectors.relation(user=context["request"].user, player_id=player.pk)
