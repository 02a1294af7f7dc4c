"""The Platform area's background work: exports too large to make while someone waits, the
connection links (integrations) nobody completed, and the nightly purge of old import plans."""

from celery import shared_task

from apps.core.tasks import for_each_workspace, workspace_task


@workspace_task(ignore_result=True)
def build_data_export(export_id: int) -> None:
    from apps.platform import exports

    exports.build(export_id)


@shared_task(ignore_result=True)
def forget_old_integration_grants() -> int:
    """Daily (Celery beat): in every workspace, deletes the integration grants (connectIntegration's
    links) expired for more than a day. Returns how many workspaces failed."""
    from apps.platform import connections

    return for_each_workspace(connections.forget_old_grants)


def purge_import_plans() -> int:
    """Nightly (Celery beat): in every workspace, deletes the import plans committed or expired
    more than ATRIUM_PLATFORM_IMPORT_PLAN_DAYS days ago. Returns how many workspaces failed."""
    from apps.platform import imports

    return for_each_workspace(imports.plans_purge)
