"""The Mail settings page: the mailboxes one may use (their state, folders, last messages, drafts
in the trash), and for the area's administrators, connecting mailboxes and their passwords.
Message bodies are shown as sanitised text only."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.pages import READ, page
from apps.mail import selectors, services, suppression
from apps.mail.forms import MailboxForm, PasswordForm
from apps.mail.models import Draft, Mailbox, Message, Suppression
from apps.mail.permissions import MailPerm


def _managed(request: AuthenticatedHttpRequest) -> list[Mailbox]:
    """Every mailbox, for the administrators who connect and repair them (Mailbox.access)."""
    return list(Mailbox.objects.restrict(request.user, "change").select_related("owner")[:500])


@page(MailPerm.VIEW, methods=READ)
def mail_settings(request: AuthenticatedHttpRequest) -> HttpResponse:
    mailboxes = list(Mailbox.objects.restrict(request.user).select_related("owner"))
    unread = selectors.unread_in_inbox(actor=request.user)
    for mailbox in mailboxes:
        mailbox.unread = unread.get(mailbox.pk, 0)  # type: ignore[attr-defined]  # for the page alone
    is_admin = can(request.user, MailPerm.ADMIN)
    return render(
        request,
        "mail/settings.html",
        {
            "nav": "mail",
            "mailboxes": mailboxes,
            "is_admin": is_admin,
            # Administrators change every mailbox (to connect and repair them), not read its mail.
            "all_mailboxes": _managed(request) if is_admin else [],
            "form": MailboxForm() if is_admin else None,
            "trashed_drafts": Draft.objects.restrict(request.user, trash="only").select_related("mailbox")[
                :50
            ],
        },
    )


@page(MailPerm.ADMIN, methods=("POST",), back="mail:settings")
def mailbox_connect(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = MailboxForm(request.POST)
    if form.is_valid():
        owner = form.people("owner")
        members = form.people("members")
        if form.is_valid():
            data = form.cleaned_data
            mailbox = services.mailbox_create(
                actor=request.user,
                name=data["name"],
                address=data["address"],
                owner=owner[0],
                shared=data["shared"],
                server=data["server"],
                imap_host=data["imap_host"],
                imap_port=data["imap_port"],
                imap_security=data["imap_security"],
                smtp_host=data["smtp_host"],
                smtp_port=data["smtp_port"],
                smtp_security=data["smtp_security"],
                username=data["username"],
                password=data["password"],
            )
            services.mailbox_set_members(actor=request.user, mailbox=mailbox, members=members)
            messages.success(request, _("The mailbox is connected; it is synchronised within a minute."))
            return redirect("mail:settings")
    mailboxes = list(Mailbox.objects.restrict(request.user).select_related("owner"))
    return render(
        request,
        "mail/settings.html",
        {
            "nav": "mail",
            "mailboxes": mailboxes,
            "is_admin": True,
            "all_mailboxes": _managed(request),
            "form": form,
            "trashed_drafts": [],
        },
        status=422,
    )


@page(MailPerm.VIEW, methods=READ)
def mailbox_detail(request: AuthenticatedHttpRequest, mailbox_id: int) -> HttpResponse:
    mailbox = Mailbox.objects.fetch(request.user, mailbox_id)
    recent = Message.objects.restrict(request.user).filter(mailbox=mailbox).select_related("folder")[:50]
    return render(
        request,
        "mail/mailbox.html",
        {
            "nav": "mail",
            "mailbox": mailbox,
            "folders": selectors.folders_counted(mailbox=mailbox),
            "recent": recent,
            "password_form": PasswordForm() if can(request.user, MailPerm.ADMIN) else None,
        },
    )


@page(MailPerm.VIEW, methods=("POST",), back="mail:settings")
def mailbox_sync(request: AuthenticatedHttpRequest, mailbox_id: int) -> HttpResponse:
    mailbox = Mailbox.objects.fetch(request.user, mailbox_id)
    added = services.mailbox_sync(mailbox=mailbox)
    messages.success(request, _("Synchronised: %(count)s new messages.") % {"count": added})
    return redirect("mail:mailbox", mailbox_id=mailbox.pk)


@page(MailPerm.ADMIN, methods=("POST",), back="mail:settings")
def mailbox_password(request: AuthenticatedHttpRequest, mailbox_id: int) -> HttpResponse:
    mailbox = Mailbox.objects.fetch(request.user, mailbox_id, "change")
    form = PasswordForm(request.POST)
    if form.is_valid():
        services.mailbox_set_password(
            actor=request.user, mailbox=mailbox, password=form.cleaned_data["password"]
        )
        messages.success(request, _("The password is saved, encrypted."))
    else:
        messages.error(request, _("Type the new password."))
    return redirect("mail:settings")


@page(MailPerm.DELETE, methods=("POST",), back="mail:settings")
def draft_restore(request: AuthenticatedHttpRequest, draft_id: int) -> HttpResponse:
    draft = Draft.objects.fetch(request.user, draft_id, "delete", trash=True)
    services.draft_restore(actor=request.user, draft=draft)
    messages.success(request, _("The draft is back."))
    return redirect("mail:settings")


# RFC 8058: a mail client's one-click POST carries no cookie or CSRF token; the signed token is the check.
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The public one-click unsubscribe page of a workspace's host: GET asks to confirm (a mail
    scanner following links unsubscribes nobody), POST adds the address to the suppression list."""
    found = suppression.read_token(token)
    if found is None:
        return render(request, "mail/unsubscribe.html", {"state": "invalid"}, status=404)
    if request.method == "POST":
        suppression.suppress(found["a"], reason=Suppression.Reason.UNSUBSCRIBED, source=found["src"])
        return render(request, "mail/unsubscribe.html", {"state": "done", "address": found["a"]})
    return render(request, "mail/unsubscribe.html", {"state": "ask", "address": found["a"]})
