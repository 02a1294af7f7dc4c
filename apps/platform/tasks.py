"""The Platform area's background work: exports too large to make while someone waits."""

from apps.core.tasks import workspace_task


@workspace_task(ignore_result=True)
def build_data_export(export_id: int) -> None:
    from apps.platform import exports

    exports.build(export_id)
