from django.contrib import admin

from games.models import Match, Move, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ["player", "reserved_for"]


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "status", "is_private", "version", "created_at"]
    list_filter = ["status", "game", "is_private"]
    inlines = [SeatInline]
    readonly_fields = ["state", "result", "version"]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ["match", "ply", "role", "action", "created_at"]
    raw_id_fields = ["match"]
