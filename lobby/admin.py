from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from games.match import text
from lobby.forms import AdminLoginForm
from lobby.models import User

admin.site.login_form = AdminLoginForm


@admin.register(User)
class BoardhallUserAdmin(UserAdmin):
    list_display = ["username", "display_name", "is_guest", "date_joined"]
    fieldsets = UserAdmin.fieldsets + (("Boardhall", {"fields": ["display_name", "is_guest"]}),)

    def save_model(self, request, obj, form, change):
        # A moderator's rename frees the old name and takes the new one (lobby.services).
        obj.name_key = text.name_key(obj.display_name)
        super().save_model(request, obj, form, change)
