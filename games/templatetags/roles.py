"""``{{ seat.role|role_label }}``: a role as people see it (``games.match.labels``)."""

from django import template
from django.utils.html import json_script

from games.match.labels import ROLE_LABELS
from games.match.labels import role_label as _role_label

register = template.Library()


@register.filter
def role_label(role: str) -> str:
    return _role_label(role)


@register.simple_tag
def role_labels_json():
    """The labels of every role as a ``role-labels`` JSON block, for the page's scripts."""
    return json_script(ROLE_LABELS, "role-labels")
