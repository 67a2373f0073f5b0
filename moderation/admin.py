"""Moderation in the Django admin: filters and search over matches, seats, reports, chat and suspensions,
and admin actions that go through the same services as the site (so each is checked and recorded).

An action that needs a reason (or hours, a player, a computer's kind) shows a form first."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import HttpRequest
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from chat.models import ChatMessage
from games.bots import LEVELS as BOT_LEVELS
from games.errors import ServiceError
from games.models import Match, Seat, Turn
from games.text import TextCheckedForm
from moderation import permissions, services
from moderation.models import ModeratedMatch, ModeratedSeat, ModerationAction, Report, Suspension
from moderation.services import MAX_REASON

# Server-only parts of a match: a list of matches (or of rows pointing at one) never loads them.
SERVER_ONLY = ("engine_state", "rng_state", "public_view")
MATCH_SERVER_ONLY = tuple(f"match__{name}" for name in SERVER_ONLY)

# --- the form an action asks for first ------------------------------------------------------------------


class ReasonForm(TextCheckedForm, forms.Form):
    reason = forms.CharField(max_length=MAX_REASON, help_text="Public where a match is concerned.")


class ExtendForm(ReasonForm):
    hours = forms.IntegerField(min_value=1, max_value=720, initial=24)


class BotForm(ReasonForm):
    bot = forms.ChoiceField(choices=[(kind, kind) for kind in BOT_LEVELS], label="Computer opponent")


class PlayerForm(ReasonForm):
    username = forms.CharField(max_length=150, label="Player's user name")


class NoteForm(TextCheckedForm, forms.Form):
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=2000)


def _ask_then_apply(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet,
    *,
    title: str,
    form_class: type[forms.Form],
    apply: Callable[[Any, dict], Any],
    targets: Callable[[QuerySet], list] = list,
):
    """Show ``form_class`` for the selection; once filled in, ``apply`` it to each target (the selected
    rows, unless ``targets`` says otherwise). A target the service refuses is reported with its reason;
    the others go ahead."""
    if request.POST.get("apply") == "yes":
        form = form_class(request.POST)
        if form.is_valid():
            done = 0
            for obj in targets(queryset):
                try:
                    apply(obj, form.cleaned_data)
                except ServiceError as exc:
                    modeladmin.message_user(request, f"{obj}: {exc.message}", messages.ERROR)
                else:
                    done += 1
            if done:
                modeladmin.message_user(request, f"{title}: done for {done}.", messages.SUCCESS)
            return None
    else:
        form = form_class()
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "queryset": queryset,
        "action": request.POST.get("action", ""),
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, "admin/moderation/action_form.html", context)


class ModerationAdmin(admin.ModelAdmin):
    """Rows change through actions only: the records stay what the services wrote."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_matches_permission(self, request: HttpRequest) -> bool:
        return permissions.can(request.user, permissions.MATCHES)

    def has_reports_permission(self, request: HttpRequest) -> bool:
        return permissions.can(request.user, permissions.REPORTS)

    def has_chat_permission(self, request: HttpRequest) -> bool:
        return permissions.can(request.user, permissions.CHAT)

    def has_users_permission(self, request: HttpRequest) -> bool:
        return permissions.can(request.user, permissions.USERS)


# --- matches ----------------------------------------------------------------------------------------------


class PausedFilter(admin.SimpleListFilter):
    title = "paused"
    parameter_name = "paused"

    def lookups(self, request, model_admin):
        return [("yes", "Paused"), ("no", "Not paused")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(paused_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(paused_at__isnull=True)
        return queryset


class ReportedFilter(admin.SimpleListFilter):
    title = "reports"
    parameter_name = "reported"

    def lookups(self, request, model_admin):
        return [("yes", "With reports to handle")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(reports__status__in=Report.UNRESOLVED).distinct()
        return queryset


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("position", "user", "bot", "status", "autopilot", "timeouts", "rank")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ModeratedMatch)
class ModeratedMatchAdmin(ModerationAdmin):
    list_display = ("id", "game", "name", "status", "is_paused", "rated", "players", "updated_at", "on_site")
    list_filter = ("status", PausedFilter, ReportedFilter, "game", "rated", "timeout_policy")
    search_fields = ("=id", "name", "seats__user__username")
    date_hierarchy = "created_at"
    # Server-only state stays out of the admin; a moderator's look at it goes through the recorded page.
    exclude = ("public_view", "engine_state", "rng_state", "seed")
    inlines = [SeatInline]
    actions = ["pause", "resume", "take_back", "abandon", "cancel"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .defer("engine_state", "rng_state", "public_view")
            .prefetch_related("seats__user")
        )

    @admin.display(boolean=True, description="paused")
    def is_paused(self, match: Match) -> bool:
        return match.paused_at is not None

    @admin.display(description="players")
    def players(self, match: Match) -> str:
        return ", ".join(seat.player_name for seat in match.seats.all())

    @admin.display(description="")
    def on_site(self, match: Match) -> str:
        return format_html('<a href="{}#moderation">moderate on the site</a>', match.get_absolute_url())

    def _match_action(self, request, queryset, title: str, call: Callable[..., Any]):
        return _ask_then_apply(
            self,
            request,
            queryset,
            title=title,
            form_class=ReasonForm,
            apply=lambda match, data: call(moderator=request.user, match_id=match.pk, reason=data["reason"]),
        )

    @admin.action(description="Pause", permissions=["matches"])
    def pause(self, request, queryset):
        return self._match_action(request, queryset, "Pause", services.match_pause)

    @admin.action(description="Resume", permissions=["matches"])
    def resume(self, request, queryset):
        return self._match_action(request, queryset, "Resume", services.match_resume)

    @admin.action(description="Take back the last move", permissions=["matches"])
    def take_back(self, request, queryset):
        return self._match_action(request, queryset, "Take back the last move", services.move_rollback)

    @admin.action(description="Abandon (no result)", permissions=["matches"])
    def abandon(self, request, queryset):
        def call(**kwargs):
            return services.match_end(status=Match.Status.ABANDONED, **kwargs)

        return self._match_action(request, queryset, "Abandon", call)

    @admin.action(description="Cancel (void, a finished result too)", permissions=["matches"])
    def cancel(self, request, queryset):
        def call(**kwargs):
            return services.match_end(status=Match.Status.CANCELLED, **kwargs)

        return self._match_action(request, queryset, "Cancel", call)


@admin.register(ModeratedSeat)
class ModeratedSeatAdmin(ModerationAdmin):
    list_display = ("match", "position", "player", "status", "autopilot", "timeouts", "deadline")
    list_filter = ("status", "match__status", "autopilot", "match__game")
    search_fields = ("user__username", "=match__id", "match__name")
    list_select_related = ("match", "user")
    actions = ["to_computer", "to_player", "remove", "extend", "adjudicate_win"]

    def get_queryset(self, request):
        open_turn = Turn.objects.filter(seat=OuterRef("pk"), closed_at__isnull=True)
        return (
            super()
            .get_queryset(request)
            .defer(*MATCH_SERVER_ONLY)
            .annotate(open_deadline=Subquery(open_turn.values("deadline")[:1]))
        )

    @admin.display(description="player")
    def player(self, seat: Seat) -> str:
        return seat.player_name

    @admin.display(description="deadline of the open turn", ordering="open_deadline")
    def deadline(self, seat: Seat):
        return seat.open_deadline

    def _seat(self, request, queryset, title: str, form_class, call: Callable[[Seat, dict], Any]):
        return _ask_then_apply(self, request, queryset, title=title, form_class=form_class, apply=call)

    @admin.action(description="Hand to a computer", permissions=["matches"])
    def to_computer(self, request, queryset):
        def call(seat: Seat, data: dict):
            return services.seat_hand_over(
                moderator=request.user,
                match_id=seat.match_id,
                position=seat.position,
                bot=data["bot"],
                reason=data["reason"],
            )

        return self._seat(request, queryset, "Hand to a computer", BotForm, call)

    @admin.action(description="Hand to another player", permissions=["matches"])
    def to_player(self, request, queryset):
        def call(seat: Seat, data: dict):
            return services.seat_hand_over(
                moderator=request.user,
                match_id=seat.match_id,
                position=seat.position,
                username=data["username"],
                reason=data["reason"],
            )

        return self._seat(request, queryset, "Hand to another player", PlayerForm, call)

    @admin.action(description="Remove the player (a forfeit)", permissions=["matches"])
    def remove(self, request, queryset):
        def call(seat: Seat, data: dict):
            return services.seat_remove(
                moderator=request.user, match_id=seat.match_id, position=seat.position, reason=data["reason"]
            )

        return self._seat(request, queryset, "Remove the player", ReasonForm, call)

    @admin.action(description="Extend the deadline", permissions=["matches"])
    def extend(self, request, queryset):
        def call(seat: Seat, data: dict):
            return services.turn_extend(
                moderator=request.user,
                match_id=seat.match_id,
                position=seat.position,
                hours=data["hours"],
                reason=data["reason"],
            )

        return self._seat(request, queryset, "Extend the deadline", ExtendForm, call)

    @admin.action(description="Adjudicate: the selected seats win their match", permissions=["matches"])
    def adjudicate_win(self, request, queryset):
        """Each match of the selection ends with its selected seats first (tied) and the others second."""
        winners: dict[int, set[int]] = {}
        for seat in queryset:
            winners.setdefault(seat.match_id, set()).add(seat.position)

        def matches(_seats) -> list[Match]:
            return list(Match.objects.filter(pk__in=winners).defer(*SERVER_ONLY))

        def call(match: Match, data: dict):
            ranks = [1 if position in winners[match.pk] else 2 for position in range(match.seat_count)]
            return services.match_adjudicate(
                moderator=request.user, match_id=match.pk, ranks=ranks, reason=data["reason"]
            )

        title = "Adjudicate: the selected seats win"
        return _ask_then_apply(
            self, request, queryset, title=title, form_class=ReasonForm, apply=call, targets=matches
        )


# --- reports, the record, chat ----------------------------------------------------------------------------


@admin.register(Report)
class ReportAdmin(ModerationAdmin):
    list_display = ("id", "created_at", "reason", "status", "reporter", "reported", "match", "assigned_to")
    list_filter = ("status", "reason", ("assigned_to", admin.RelatedOnlyFieldListFilter), "created_at")
    search_fields = ("=id", "reporter__username", "reported__username", "details", "=match__id")
    list_select_related = ("reporter", "reported", "match", "assigned_to")
    readonly_fields = [field.name for field in Report._meta.fields]
    date_hierarchy = "created_at"
    actions = ["assign_to_me", "resolve", "dismiss"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer(*MATCH_SERVER_ONLY)

    @admin.action(description="Take (assign to me)", permissions=["reports"])
    def assign_to_me(self, request, queryset):
        for report in queryset:
            try:
                services.report_assign(moderator=request.user, report_id=report.pk)
            except ServiceError as exc:
                self.message_user(request, f"#{report.pk}: {exc.message}", messages.ERROR)

    def _close(self, request, queryset, *, dismiss: bool):
        title = "Dismiss" if dismiss else "Resolve"
        return _ask_then_apply(
            self,
            request,
            queryset,
            title=title,
            form_class=NoteForm,
            apply=lambda report, data: services.report_resolve(
                moderator=request.user, report_id=report.pk, note=data["note"], dismiss=dismiss
            ),
        )

    @admin.action(description="Resolve with a note", permissions=["reports"])
    def resolve(self, request, queryset):
        return self._close(request, queryset, dismiss=False)

    @admin.action(description="Dismiss with a note", permissions=["reports"])
    def dismiss(self, request, queryset):
        return self._close(request, queryset, dismiss=True)


@admin.register(ModerationAction)
class ModerationActionAdmin(ModerationAdmin):
    list_display = ("created_at", "moderator", "kind", "summary", "reason", "match", "target_user")
    list_filter = ("kind", ("moderator", admin.RelatedOnlyFieldListFilter), "created_at")
    search_fields = (
        "summary",
        "reason",
        "note",
        "moderator__username",
        "target_user__username",
        "=match__id",
    )
    list_select_related = ("moderator", "target_user", "match")
    readonly_fields = [field.name for field in ModerationAction._meta.fields]
    date_hierarchy = "created_at"

    def get_queryset(self, request):
        return super().get_queryset(request).defer(*MATCH_SERVER_ONLY)


class HiddenFilter(admin.SimpleListFilter):
    title = "hidden"
    parameter_name = "hidden"

    def lookups(self, request, model_admin):
        return [("yes", "Hidden"), ("no", "Shown")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(hidden_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(hidden_at__isnull=True)
        return queryset


@admin.register(ChatMessage)
class ChatMessageAdmin(ModerationAdmin):
    list_display = ("id", "created_at", "match", "author", "text", "hidden_at")
    list_filter = (HiddenFilter, "created_at")
    search_fields = ("text", "author__username", "=match__id")
    list_select_related = ("match", "author")
    readonly_fields = [field.name for field in ChatMessage._meta.fields]
    actions = ["hide"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer(*MATCH_SERVER_ONLY)

    @admin.action(description="Hide", permissions=["chat"])
    def hide(self, request, queryset):
        return _ask_then_apply(
            self,
            request,
            queryset,
            title="Hide",
            form_class=ReasonForm,
            apply=lambda message, data: services.message_hide(
                moderator=request.user, message_id=message.pk, reason=data["reason"]
            ),
        )


# --- suspensions ------------------------------------------------------------------------------------------


class InForceFilter(admin.SimpleListFilter):
    title = "in force"
    parameter_name = "in_force"

    def lookups(self, request, model_admin):
        return [("yes", "In force"), ("no", "Over")]

    def queryset(self, request, queryset):
        running = Q(lifted_at__isnull=True) & (Q(ends_at__isnull=True) | Q(ends_at__gt=timezone.now()))
        if self.value() == "yes":
            return queryset.filter(running)
        if self.value() == "no":
            return queryset.exclude(running)
        return queryset


class SuspensionAddForm(TextCheckedForm, forms.ModelForm):
    forever = forms.BooleanField(required=False, label="For good (a ban only)")

    class Meta:
        model = Suspension
        fields = ("user", "kind", "ends_at", "forever", "reason")

    def clean(self) -> dict:
        data = super().clean()
        now = timezone.now()
        if data.get("forever"):
            if data.get("kind") != Suspension.Kind.BAN:
                raise forms.ValidationError("Only a ban can be for good.")
        elif not data.get("ends_at") or data["ends_at"] < now + timedelta(hours=1):
            raise forms.ValidationError(
                "Give an end at least an hour from now, or tick 'for good' for a ban."
            )
        return data


@admin.register(Suspension)
class SuspensionAdmin(ModerationAdmin):
    list_display = ("user", "kind", "starts_at", "ends_at", "lifted_at", "moderator", "reason", "user_page")
    list_filter = ("kind", InForceFilter, "starts_at")
    search_fields = ("user__username", "reason", "moderator__username")
    list_select_related = ("user", "moderator")
    raw_id_fields = ("user",)
    form = SuspensionAddForm
    actions = ["lift"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return permissions.can(request.user, permissions.USERS)

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in Suspension._meta.fields] if obj is not None else []

    @admin.display(description="")
    def user_page(self, suspension: Suspension) -> str:
        url = reverse("moderation-user", args=[suspension.user.username])
        return format_html('<a href="{}">on the site</a>', url)

    def save_model(self, request, obj: Suspension, form, change: bool) -> None:
        """Through the service, so the user is kept out and the action recorded."""
        data = form.cleaned_data
        duration = None if data.get("forever") else data["ends_at"] - timezone.now()
        created = services.user_suspend(
            moderator=request.user,
            user_id=obj.user_id,
            kind=data["kind"],
            duration=duration,
            reason=data["reason"],
        )
        obj.pk = created.pk
        obj.refresh_from_db()

    def add_view(self, request, form_url="", extra_context=None):
        try:
            return super().add_view(request, form_url, extra_context)
        except ServiceError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return redirect(reverse("admin:moderation_suspension_add"))

    @admin.action(description="Lift", permissions=["users"])
    def lift(self, request, queryset):
        return _ask_then_apply(
            self,
            request,
            queryset,
            title="Lift",
            form_class=ReasonForm,
            apply=lambda suspension, data: services.suspension_lift(
                moderator=request.user, suspension_id=suspension.pk, reason=data["reason"]
            ),
        )
