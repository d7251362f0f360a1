from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.cache import cache_page
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog

from botapi import views as botapi_views
from botapi.api import api as bot_api

urlpatterns = [
    path("admin/", admin.site.urls),
    # Browsers that ignore the pages' <link rel="icon"> still ask for this address.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    # The scripts' translations (static/js: gettext(), ngettext()), in the page's language; the
    # pages ask for it with ?l=<language>, so a browser keeps one copy per language.
    path("jsi18n/", cache_page(3600, key_prefix="jsi18n")(JavaScriptCatalog.as_view()), name="javascript-catalog"),
    path("api/docs/", botapi_views.api_docs, name="botapi-docs"),
    path("api/", bot_api.urls),
    path("", include("botapi.urls")),
    path("", include("notify.urls")),
    path("", include("lobby.urls")),
    path("", include("games.urls")),
    path("", include("games.history.urls")),
    path("", include("social.urls")),
    path("", include("tournaments.urls")),
    path("", include("ggparena.urls")),
]
