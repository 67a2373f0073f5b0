"""The Moderators group and what it may do (moderation/permissions.py names the custom permissions)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Moderators"
PERMISSIONS = {
    "moderation": [
        "moderate_matches",
        "view_hidden_state",
        "moderate_users",
        "moderate_chat",
        "work_reports",
        "view_report",
        "view_moderationaction",
        "view_suspension",
        "add_suspension",
        "view_moderatedmatch",
        "view_moderatedseat",
    ],
    "chat": ["view_chatmessage"],
    # The admin's user picker for a suspension.
    "accounts": ["view_user"],
}


def create_group(apps, schema_editor):
    # Permissions are normally made after all migrations run; this one needs them now.
    for label in PERMISSIONS:
        config = apps.get_app_config(label)
        # A migration's app configs have no models module, which create_permissions takes as "no models".
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    for label, codenames in PERMISSIONS.items():
        found = Permission.objects.filter(content_type__app_label=label, codename__in=codenames)
        missing = set(codenames) - set(found.values_list("codename", flat=True))
        if missing:
            raise RuntimeError(f"Permissions missing for the Moderators group: {sorted(missing)}")
        group.permissions.add(*found)


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0001_initial"),
        ("chat", "0001_initial"),
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
