"""Operators create, change and delete workspaces from the public site's admin."""

from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from apps.core import permissions, servers
from apps.core.errors import AppError
from apps.tenancy.models import Domain, Workspace
from apps.tenancy.services import workspace_create, workspace_delete

if TYPE_CHECKING:
    from django.contrib.admin.options import _FieldGroups


def area_choices() -> list[tuple[str, Any]]:
    return [(area.key, area.title) for area in permissions.areas() if not area.core]


class WorkspaceChangeForm(forms.ModelForm):
    installed_areas = forms.MultipleChoiceField(
        label=_("Installed areas"), required=False, widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = Workspace
        fields = ["name", "brand_name", "time_zone", "installed_areas"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.MultipleChoiceField, self.fields["installed_areas"]).choices = area_choices()


class WorkspaceAddForm(WorkspaceChangeForm):
    schema_name = forms.SlugField(
        label=_("Schema name"),
        required=False,
        max_length=63,
        help_text=_("Lower-case letters, digits and _. Derived from the name if empty."),
    )
    domain = forms.CharField(label=_("Domain"), help_text=_("Host name the workspace answers on."))
    owner_email = forms.EmailField(label=_("Owner's email"))

    class Meta(WorkspaceChangeForm.Meta):
        fields = ["name", "brand_name", "time_zone", "installed_areas"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["brand_name"].required = False
        self.initial.setdefault("installed_areas", permissions.optional_area_keys())

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        try:
            self.instance = workspace_create(
                name=data.get("name", ""),
                schema_name=data.get("schema_name") or None,
                brand_name=data.get("brand_name") or None,
                time_zone=data.get("time_zone") or "UTC",
                installed_areas=data.get("installed_areas", []),
                domains=[data.get("domain", "")],
                owner_email=data.get("owner_email", ""),
            )
        except AppError as error:
            raise forms.ValidationError(str(error.message)) from error
        return data


class DomainInline(admin.TabularInline):
    model = Domain
    extra = 0


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ["name", "schema_name", "brand_name", "domain_list", "time_zone", "created_at"]
    search_fields = ["name", "schema_name", "brand_name", "domains__domain"]
    readonly_fields = ["schema_name", "created_at"]
    inlines = [DomainInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Workspace]:
        return super().get_queryset(request).exclude(schema_name="public").prefetch_related("domains")

    def get_form(
        self, request: HttpRequest, obj: Workspace | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm]:
        kwargs["form"] = WorkspaceChangeForm if obj else WorkspaceAddForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Workspace | None = None) -> "_FieldGroups":
        if obj is None:
            return [
                "name",
                "schema_name",
                "brand_name",
                "domain",
                "owner_email",
                "time_zone",
                "installed_areas",
            ]
        return ["name", "schema_name", "brand_name", "time_zone", "installed_areas", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Workspace | None = None) -> list[str]:
        return ["schema_name", "created_at"] if obj else []

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        if object_id is None and request.method == "POST" and servers.configured():
            # Adding: the form's clean() creates the workspace (`workspace_create`, transactions of
            # its own, perhaps on another database server, where it cannot be inside the
            # transaction Django's view would open on the default connection's server).
            view: Any = self._changeform_view  # type: ignore[attr-defined]  # Django's, untyped
            return view(request, object_id, form_url, extra_context)
        return super().changeform_view(request, object_id, form_url, extra_context)

    def get_inlines(self, request: HttpRequest, obj: Workspace | None = None) -> list[Any]:
        return [DomainInline] if obj else []

    def save_model(self, request: HttpRequest, obj: Workspace, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
        # A new workspace was created (schema, domain and owner) by the add form's clean().

    def delete_model(self, request: HttpRequest, obj: Workspace) -> None:
        workspace_delete(workspace=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Workspace]) -> None:
        for workspace in queryset:
            workspace_delete(workspace=workspace)
        messages.info(request, _("The workspaces and all their data were deleted."))

    @admin.display(description=_("Domains"))
    def domain_list(self, obj: Workspace) -> str:
        return ", ".join(domain.domain for domain in obj.domains.all())
