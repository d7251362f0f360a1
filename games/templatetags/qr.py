"""``{% qr_svg url %}``: a QR code of ``url`` as inline SVG, drawn on the server by segno (pure
Python, no dependencies): nothing is fetched, and the page needs no script or build step."""

import segno
from django import template
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag
def qr_svg(url: str, title: str = "QR code of the link") -> str:
    """Dark modules on a light ground whatever the theme (a phone's camera reads it so), four
    pixels a module with segno's quiet zone; an image with its ``title`` for screen readers."""
    svg = segno.make(url, error="m").svg_inline(scale=4, title=title, svgclass="qr", dark="#000", light="#fff")
    return mark_safe(svg.replace("<svg ", '<svg role="img" ', 1))  # segno escapes the title
