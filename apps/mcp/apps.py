from django.apps import AppConfig


class McpConfig(AppConfig):
    name = "apps.mcp"
    verbose_name = "MCP endpoint"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (tool-list changes -> notifications on open streams)
