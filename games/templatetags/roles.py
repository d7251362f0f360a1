"""``{{ seat.role|role_label }}``: a role as people see it (``games.match.labels``); and the
JSON blocks the pages' scripts read: the roles' labels and the reasons' words, in the page's
language."""

from django import template
from django.utils.html import format_html, json_script

from games.match.labels import ROLE_LABELS, seat_label
from games.match.labels import role_label as _role_label
from games.match.reasons import reason_table

register = template.Library()


@register.filter
def role_label(role: str) -> str:
    return _role_label(role)


@register.simple_tag
def role_labels_json():
    """The labels of every role ("X", "Rot") as a ``role-labels`` JSON block, for the page's
    scripts (static/js/names.js), and the words for the results' reasons (``reason-words``)."""
    return format_html("{}\n{}", json_script({role: seat_label(role) for role in ROLE_LABELS}, "role-labels"),
                       json_script(reason_table(), "reason-words"))
