from django.urls import path

from games import embed, views
from games.ggp.gdl.sheets import RULESHEET_NAME

app_name = "games"
urlpatterns = [
    path("matches/<int:match_id>/", views.match_page, name="match"),
    path("matches/<int:match_id>/positions/", views.match_positions, name="positions"),
    path("matches/<int:match_id>/join/", views.match_join, name="join"),
    path("matches/<int:match_id>/computer/", views.match_give_to_computer, name="give_to_computer"),
    path("matches/<int:match_id>/abort/", views.match_abort, name="abort"),
    path("matches/<int:match_id>/rematch/", views.match_rematch, name="rematch"),
    path("matches/<int:match_id>/rematch/decline/", views.match_rematch_decline, name="rematch_decline"),
    path("matches/<int:match_id>/position.png", embed.match_picture, name="picture"),
    path("embed/<int:match_id>/", embed.match_embed, name="embed"),
    path("rules/", views.rules_index, name="rules_index"),
    path("rules/<slug:slug>/", views.rules_page, name="rules"),
    path("rules/<slug:slug>.kif", views.rules_sheet, name="rules_sheet"),
    path("rules/<slug:slug>/v<int:version>/", views.rules_meta, name="rules_meta"),
    path(f"rules/<slug:slug>/v<int:version>/{RULESHEET_NAME}", views.rules_meta_sheet, name="rules_meta_sheet"),
]
