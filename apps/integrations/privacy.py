from apps.core import privacy
from apps.integrations.models import ProviderSetting

privacy.not_personal(
    ProviderSetting, reason="the workspace's credentials of outside providers, encrypted; no person's data"
)
