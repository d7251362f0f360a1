from django.contrib import admin

from games.models import ChatMessage, Match, Move, Seat


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


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    """Moderation: find a match's or a player's lines and delete the ones that break the rules."""

    list_display = ["match", "author", "text", "created_at"]
    search_fields = ["text", "author__display_name", "author__username"]
    raw_id_fields = ["match", "author"]
