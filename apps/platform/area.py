"""The Platform area, as the rest of the service knows it (apps.core.areas): in every workspace."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env

area = areas.declare(
    title=_("Platform"),
    group=areas.Group.ADMINISTRATION,
    description=_(
        "The workspace, its people, roles and API keys; reference data: countries, banks, tax ids, holidays"
    ),
    core=True,
    urls=None,
    words=(
        "workspace people users roles permissions api keys reference country region bank iban vat tax "
        "holiday import export csv xlsx spreadsheet"
    ),
    hints={
        "getMyProfile": (
            "who am I, my profile, my account, my role, am I an admin, what am I allowed to do, my "
            "permissions, which email am I signed in with, time zone"
        ),
        "getWorkspaceSummary": (
            "overview of the workspace or account, which apps modules areas are installed, how many records "
            "contacts deals tasks do we have in total, counts, server time"
        ),
        "listWorkspaceUsers": (
            "everyone in the workspace, my colleagues on here, team members, users and their roles, who are "
            "the admins, how many people use it, a colleague's email address, deactivated users"
        ),
        "listRoles": (
            "roles and what each can do, access levels, permissions of a role, custom roles, can viewers, "
            "members"
        ),
        "listApiKeys": "my API keys, gateway or integration keys, their budget, spend, usage, last used",
        "revokeApiKey": "revoke kill disable cancel a leaked or compromised API key",
        "inviteWorkspaceUser": (
            "invite add a new user person colleague new hire to the workspace, give them access, send "
            "a login invitation e-mail"
        ),
        "updateUserRole": "change a user's role, make someone an admin, promote demote, member viewer owner",
        "deactivateWorkspaceUser": (
            "remove a user's access, someone left the company, former employee, offboard, disable an "
            "account, revoke all their logins sessions tokens"
        ),
        "manageRole": (
            "create rename delete a custom role, set change its permissions access rights, move its people "
            "to another role"
        ),
        "listInstalledApps": "which apps modules areas are installed enabled turned on, which could we add",
        "manageInstalledApps": (
            "install uninstall enable disable add remove an app module area for the workspace, switch it "
            "on off"
        ),
        "getCountriesByRegion": (
            "which countries are in a continent or world region, list of nations, EU member states, Latin "
            "America, Southeast Asia, sales territory"
        ),
        "getCountryBankConfig": (
            "IBAN length and format of a country, what a bank account number or sort code looks like, how "
            "many digits, BIC format, SEPA, paying a supplier abroad"
        ),
        "validateBankDetails": (
            "check verify an IBAN or BIC SWIFT code, which bank an IBAN belongs to, bank details someone "
            "sent, turn a sort code and account number into an IBAN"
        ),
        "validateTaxId": (
            "check verify a VAT ID, VAT registration, tax number, company number, SIREN, NIF, BSN, EIN, "
            "national id of a customer or supplier before invoicing them, is it real genuine valid"
        ),
        "validateDataImport": (
            "check validate dry run a spreadsheet csv xlsx excel upload file before importing, which rows "
            "have errors or duplicates, import contacts tasks records"
        ),
        "commitDataImport": (
            "go ahead apply commit import the checked validated file by its token, import it now, leave out "
            "skip the bad rows"
        ),
        "bulkImportContacts": (
            "import upload add contacts leads customers people from a csv spreadsheet excel file address "
            "book list into contacts at once, bring in leads from a fair list"
        ),
        "exportDataCsv": (
            "export download records contacts customers as a csv excel xlsx spreadsheet file, a list of "
            "everyone tagged"
        ),
        "requestDataExport": (
            "start a full large export in the background of all contacts, tell me when it is ready, "
            "big export"
        ),
        "getDataExportStatus": (
            "is my export finished ready done, progress of an export, where to download it"
        ),
        "examinePersonalData": (
            "GDPR DSGVO data subject access request, what personal data information do we hold store keep "
            "about a person, everything on someone, privacy export"
        ),
        "erasePersonalData": (
            "GDPR DSGVO right to be forgotten, erasure deletion request, erase anonymise all personal data "
            "of a person across the workspace"
        ),
        "getPublicHolidays": (
            "bank holidays, national holidays, days off, office closed, public holiday calendar of a country "
            "or state, when is Easter Christmas"
        ),
    },
    profiles={
        "reference": (
            "getMyProfile",
            "getWorkspaceSummary",
            "listWorkspaceUsers",
            "listRoles",
            "listApiKeys",
            "revokeApiKey",
            "getCountriesByRegion",
            "getCountryBankConfig",
            "validateBankDetails",
            "validateTaxId",
            "getPublicHolidays",
        ),
        # Who may do what: people and their roles, the workspace's API keys.
        "access": (
            "getMyProfile",
            "getWorkspaceSummary",
            "listWorkspaceUsers",
            "inviteWorkspaceUser",
            "updateUserRole",
            "deactivateWorkspaceUser",
            "listRoles",
            "manageRole",
            "listInstalledApps",
            "manageInstalledApps",
            "listApiKeys",
            "revokeApiKey",
        ),
        # A customer's VAT number on an invoice; bank details are checked from the reference profile.
        "billing": ("validateTaxId",),
        "data": (
            "validateDataImport",
            "commitDataImport",
            "bulkImportContacts",
            "exportDataCsv",
            "requestDataExport",
            "getDataExportStatus",
            "examinePersonalData",
            "erasePersonalData",
        ),
    },
    not_kinds={
        "platform.DataImport": "a file's rows checked for an import, its maker's until committed (by token)",
        "platform.DataExport": "a background export's progress, its requester's (getDataExportStatus)",
    },
    periodic={
        # Import plans hold the rows of the files people imported: gone some days after their use.
        "purge-import-plans": areas.Periodic(
            "apps.platform.tasks.purge_import_plans", crontab(hour=3, minute=53)
        ),
    },
    settings={
        # Days a committed or expired import plan is kept (its rows, problems and duplicates quote
        # the file's people) before the nightly purge deletes it.
        "ATRIUM_PLATFORM_IMPORT_PLAN_DAYS": env.int("ATRIUM_PLATFORM_IMPORT_PLAN_DAYS", 14, min=0),
    },
)
