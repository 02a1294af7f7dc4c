"""The data team's side, in the admin of the public site: the requests (status, notes, receiving
host), the export and erasure of a person's data in a workspace, and the record of both."""

import logging
import tempfile
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import FileResponse, HttpRequest, HttpResponseBase, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.core.errors import AppError
from apps.datarights import services
from apps.datarights.models import DataRequest, PersonalDataOperation
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.tenancy.models import Workspace

logger = logging.getLogger(__name__)

EXPORT = "export"
ERASE = "erase"


class PersonalDataForm(forms.Form):
    workspace = forms.ModelChoiceField(
        queryset=Workspace.objects.exclude(schema_name="public").order_by("name"),
        label=gettext_lazy("Workspace"),
    )
    email = forms.EmailField(
        label=gettext_lazy("The person's e-mail address"),
        widget=forms.EmailInput(attrs={"class": "vTextField"}),
    )
    action = forms.ChoiceField(
        label=gettext_lazy("What to do"),
        choices=[
            (EXPORT, gettext_lazy("Export everything the workspace holds about the person")),
            (ERASE, gettext_lazy("Erase it (soft-delete, then erase; cannot be undone)")),
        ],
        widget=forms.RadioSelect,
        initial=EXPORT,
    )
    confirm_email = forms.CharField(
        label=gettext_lazy("To erase, type the e-mail address again"),
        required=False,
        widget=forms.TextInput(attrs={"class": "vTextField", "autocomplete": "off"}),
    )
    data_request = forms.ModelChoiceField(
        queryset=DataRequest.objects.all(), required=False, widget=forms.HiddenInput
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        email = (data.get("email") or "").strip().lower()
        if data.get("action") == ERASE and (data.get("confirm_email") or "").strip().lower() != email:
            self.add_error("confirm_email", _("Type the same e-mail address to confirm the erasure."))
        return data


class OperationInline(admin.TabularInline):
    model = PersonalDataOperation
    extra = 0
    can_delete = False
    fields = ("created_at", "kind", "outcome", "schema_name", "counts", "files", "performed_by", "problem")
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("exports and erasures")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# A request's page, section by section. The data team changes its status and notes; everything
# else is as it came in.
REQUEST_SECTIONS: list[tuple[Any, tuple[str, ...]]] = [
    (gettext_lazy("Request"), ("reference", "type", "received_at", "created_at", "host", "workspace")),
    (gettext_lazy("Requester"), ("name", "email", "account", "details", "locale", "country", "erased_at")),
    (gettext_lazy("Handling"), ("status", "notes", "closed_at", "updated_at")),
    (
        gettext_lazy("Notification of the data team"),
        (
            "notification",
            "notification_attempts",
            "notification_error",
            "notification_due_at",
            "notified_at",
            "duplicates",
            "last_duplicate_at",
        ),
    ),
]
EDITABLE = ("status", "notes")


@admin.register(DataRequest)
class DataRequestAdmin(admin.ModelAdmin):
    list_display = [
        "reference",
        "type",
        "status",
        "created_at",
        "host",
        "workspace",
        "notification",
        "duplicates",
    ]
    list_filter = ["status", "type", "notification", "workspace"]
    # By reference only: a search is a GET, and a query string with an address would end up in
    # the web server's access log. A person's requests are found through the personal-data page.
    search_fields = ["reference"]
    date_hierarchy = "created_at"
    actions = ["handle_personal_data"]
    inlines = [OperationInline]
    fieldsets = [(title, {"fields": fields}) for title, fields in REQUEST_SECTIONS]
    readonly_fields = [name for _title, fields in REQUEST_SECTIONS for name in fields if name not in EDITABLE]

    # Requests come in through the API only, and stay as the record of how they were handled
    # (an erasure of the requester anonymises them).
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: DataRequest, form: Any, change: bool) -> None:
        services.data_request_update(
            request=obj, status=obj.status, notes=obj.notes, actor_id=request.user.pk
        )

    # --- export and erasure ----------------------------------------------------------------

    @admin.action(description=gettext_lazy("Export or erase the requester's data…"))
    def handle_personal_data(self, request: HttpRequest, queryset: QuerySet[DataRequest]) -> Any:
        if queryset.count() != 1:
            self.message_user(request, _("Choose exactly one request."), messages.WARNING)
            return None
        return HttpResponseRedirect(
            f"{reverse('admin:datarights_personal_data')}?request={queryset.get().pk}"
        )

    def get_urls(self) -> list[Any]:
        return [
            path(
                "personal-data/",
                self.admin_site.admin_view(self.personal_data_view),
                name="datarights_personal_data",
            ),
            *super().get_urls(),
        ]

    def personal_data_view(self, request: HttpRequest) -> HttpResponseBase:
        may_export = request.user.has_perm("datarights.export_personal_data")
        may_erase = request.user.has_perm("datarights.erase_personal_data")
        if not (may_export or may_erase):
            raise PermissionDenied
        if request.method == "POST":
            form = PersonalDataForm(request.POST)
            if form.is_valid():
                response = self._run(request, form, may_export=may_export, may_erase=may_erase)
                if response is not None:
                    return response
        else:
            form = PersonalDataForm(initial=self._initial(request))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("A person's data in a workspace"),
            "form": form,
            "may_export": may_export,
            "may_erase": may_erase,
        }
        return TemplateResponse(request, "admin/datarights/personal_data.html", context)

    @staticmethod
    def _initial(request: HttpRequest) -> dict[str, Any]:
        initial: dict[str, Any] = {}
        request_id = request.GET.get("request", "")
        data_request = DataRequest.objects.filter(pk=request_id).first() if request_id.isdigit() else None
        if data_request is not None:
            initial.update(
                data_request=data_request.pk, email=data_request.email, workspace=data_request.workspace_id
            )
        workspace = request.GET.get("workspace")
        if workspace and workspace.isdigit():
            initial["workspace"] = int(workspace)
        return initial

    def _run(
        self, request: HttpRequest, form: PersonalDataForm, *, may_export: bool, may_erase: bool
    ) -> HttpResponseBase | None:
        data = form.cleaned_data
        workspace, data_request = data["workspace"], data["data_request"]
        # Whose data, where, by whom and for which request: the same for an export and an erasure.
        subject = {
            "workspace": workspace,
            "email": data["email"],
            "performed_by": f"admin:{request.user.pk}",
            "data_request": data_request,
        }
        if data["action"] == EXPORT:
            if not may_export:
                raise PermissionDenied
            out = tempfile.TemporaryFile()  # noqa: SIM115  (FileResponse closes it)
            try:
                summary = personal_data_export(out=out, **subject)
            except AppError as error:
                out.close()
                form.add_error(None, str(error.message))
                return None
            out.seek(0)
            return FileResponse(
                out, as_attachment=True, filename=summary.filename, content_type=summary.content_type
            )
        if not may_erase:
            raise PermissionDenied
        try:
            counts = personal_data_erase(**subject)
        except AppError as error:
            form.add_error(None, str(error.message))
            return None
        except Exception as error:
            # Logged by the erasure (without personal data); the person stays disabled.
            form.add_error(
                None,
                _("The erasure failed (%(error)s). The person stays disabled; run the erasure again.")
                % {"error": type(error).__name__},
            )
            return None
        total = sum(counts.values())
        self.message_user(
            request,
            _("Erased %(total)s records in workspace %(workspace)s: %(counts)s.")
            % {
                "total": total,
                "workspace": workspace.name,
                "counts": ", ".join(f"{label} {count}" for label, count in counts.items())
                or _("nothing found"),
            },
            messages.SUCCESS,
        )
        if data_request is not None:
            return HttpResponseRedirect(
                reverse("admin:datarights_datarequest_change", args=[data_request.pk])
            )
        return HttpResponseRedirect(reverse("admin:datarights_datarequest_changelist"))


@admin.register(PersonalDataOperation)
class PersonalDataOperationAdmin(admin.ModelAdmin):
    """The record of every export and erasure: read-only."""

    list_display = ["created_at", "kind", "outcome", "schema_name", "data_request", "files", "performed_by"]
    list_filter = ["kind", "outcome", "schema_name"]
    search_fields = ["data_request__reference"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
