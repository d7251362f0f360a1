"""How a resigned seat left play (games.models.Out). Seats resigned before keep it blank: the
pages say "resigned" for them, as they did."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0010_match_resigned'),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='out',
            field=models.CharField(blank=True, choices=[('resigned', 'resigned'), ('time', 'ran out of time'), ('abandoned', 'away, claimed against'), ('left', 'left the site')], help_text='how a resigned seat left play (blank before this was kept: resigned)', max_length=10),
        ),
    ]
