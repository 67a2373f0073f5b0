import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# Each index is the leading column of a unique constraint that serves the same look-ups; the moves'
# and notifications' INSERTs kept both up to date. Only the indexes go: altering the fields in the
# database would drop and re-validate their foreign keys as well.
DROPPED = [
    ("games_move", "match_id", "games_move_match_id_b9c0e951"),
    ("games_notification", "user_id", "games_notification_user_id_d7af6374"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_flag"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="move",
                    name="match",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="moves",
                        to="games.match",
                    ),
                ),
                migrations.AlterField(
                    model_name="notification",
                    name="user",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="notifications",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    sql=f'DROP INDEX IF EXISTS "{index}"',
                    reverse_sql=f'CREATE INDEX "{index}" ON "{table}" ("{column}")',
                )
                for table, column, index in DROPPED
            ],
        ),
    ]
