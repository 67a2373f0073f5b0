from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.forms import AdminLoginForm
from accounts.models import User

admin.site.login_form = AdminLoginForm


@admin.register(User)
class WallsiteUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Wallsite", {"fields": ("time_zone",)}))
    list_display = ("username", "email", "is_active", "is_staff", "date_joined", "last_login")
