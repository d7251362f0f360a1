from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from lobby.models import User


@admin.register(User)
class BoardhallUserAdmin(UserAdmin):
    list_display = ["username", "display_name", "is_guest", "date_joined"]
    fieldsets = UserAdmin.fieldsets + (("Boardhall", {"fields": ["display_name", "is_guest"]}),)
