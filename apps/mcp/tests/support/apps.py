from django.apps import AppConfig


class SupportConfig(AppConfig):
    name = "apps.mcp.tests.support"
    label = "mcp_test_support"
