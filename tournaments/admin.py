"""The site's scheduled events, set up without code: each row creates its tournaments on time
(``tournaments.schedule``); settings that cannot run are refused with the reason."""

from django import forms
from django.contrib import admin

from tournaments.models import ScheduledEvent
from tournaments.schedule import event_problems


class ScheduledEventForm(forms.ModelForm):
    class Meta:
        model = ScheduledEvent
        fields = "__all__"

    def clean(self):
        data = super().clean()
        for field, problem in event_problems(ScheduledEvent(**{k: v for k, v in data.items()})).items():
            self.add_error(field if field in self.fields else None, problem)
        return data


@admin.register(ScheduledEvent)
class ScheduledEventAdmin(admin.ModelAdmin):
    form = ScheduledEventForm
    list_display = ["name", "game", "format", "clock", "times", "active"]
    list_filter = ["active", "format", "game"]
    raw_id_fields = ["host"]
