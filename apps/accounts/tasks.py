from celery import shared_task

from apps.accounts import services
from apps.core.tasks import for_each_workspace, workspace_task


@shared_task(ignore_result=True)
def sweep_step_up_codes() -> int:
    """Hourly: in every workspace, deletes the e-mailed step-up codes and the step-ups that no
    longer count for anything (apps.accounts.otp.sweep). Returns how many workspaces failed."""
    from apps.accounts import otp

    return for_each_workspace(otp.sweep)


@shared_task
def purge_expired_access_tokens() -> int:
    """Daily: drops tokens that expired or were revoked more than 30 days ago, in every workspace."""
    return for_each_workspace(services.access_tokens_purge)


# An SMTP server out of reach (smtplib's errors are OSErrors) is tried again, with a fresh link.
@workspace_task(ignore_result=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=3)
def send_password_reset(user_id: int, origin: str) -> bool:
    """E-mails a person the link to set a new password (apps.accounts.services.password_reset_send)."""
    return services.password_reset_send(user_id=user_id, origin=origin)


@workspace_task(ignore_result=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=3)
def send_sign_in_notice(user_id: int, origin: str, failures: int, clients: int, since: str) -> bool:
    """Tells a person that signing in with their password is paused, with a link that signs them
    in (apps.accounts.services.sign_in_notice_send)."""
    return services.sign_in_notice_send(
        user_id=user_id, origin=origin, failures=failures, clients=clients, since=since
    )


@workspace_task(ignore_result=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=3)
def send_sign_in_link(user_id: int, origin: str) -> bool:
    """E-mails a person a link that signs them in (apps.accounts.services.sign_in_link_send)."""
    return services.sign_in_link_send(user_id=user_id, origin=origin)


@workspace_task(ignore_result=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=3)
def send_invitation(user_id: int, origin: str, inviter: str) -> bool:
    """E-mails an invited person the link that sets their password and signs them in
    (apps.accounts.services.invitation_send)."""
    return services.invitation_send(user_id=user_id, origin=origin, inviter=inviter)
