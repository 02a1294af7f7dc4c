"""The Platform area, as the rest of the service knows it (apps.core.areas): in every workspace."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.platform import fields

area = areas.declare(
    title=_("Platform"),
    group=areas.Group.ADMINISTRATION,
    description=_(
        "The workspace, its people, roles and API keys; reference data: countries, banks, tax ids, holidays"
    ),
    core=True,
    # The client portal's pages, and the page an outside service sends a person back to after they
    # allowed a connection.
    urls="urls",
    words=(
        "workspace people users roles permissions api keys reference country region bank iban vat tax "
        "holiday import export csv xlsx spreadsheet ocr scan transcribe audio image photo audit activity log "
        "stored api http request endpoint integration oauth connect"
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
        "getBillingSummary": (
            "AI usage and spend of the service, what we were charged, API key budgets used up, model and "
            "tool usage per area over a month or quarter"
        ),
        "checkRates": (
            "price per token of the AI model, AI credit rates, estimate the cost of input output tokens, "
            "price list of the service's metering"
        ),
        "searchHelpArticles": (
            "help docs, documentation, user guide, manual, how does the service work, read the help pages"
        ),
        "createSupportTicket": (
            "contact the vendor, support of the service itself, report a bug or outage to its operators, "
            "help desk of the platform provider"
        ),
        "assessFeasibility": (
            "can this be done here, would this workspace let me, is it possible feasible with what we have "
            "installed, do I have the rights, what is missing, which apps or permissions would I need"
        ),
        "searchActivityLog": (
            "audit log, activity log, who did what and when, what did the agent do, everything a "
            "colleague did, history of changes by a person, failed tool calls, API calls made"
        ),
        "getActivityDetail": (
            "details of one audit log activity entry, what exactly changed in it, why did a tool call "
            "end in an error, which client, how long it took"
        ),
        "listRecentlyDeleted": (
            "recently deleted records in the trash bin of every area, what was removed, undo a delete, "
            "which restore tool brings it back"
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
        "extractDocumentText": (
            "read get pull the text out of a scanned pdf, photo of a page, picture of a receipt or letter, "
            "ocr, tesseract, copy the words from a scan"
        ),
        "transcribeAudio": (
            "transcribe a recording, voice memo, voicemail, podcast, meeting audio or video to text, speech "
            "to text, what was said in the mp3"
        ),
        "analyzeImage": (
            "look at describe a photo picture image screenshot, what is in this image, ask about a photo, "
            "vision, identify objects in a picture"
        ),
        "listPortalUsers": "client portal users, external customer portal logins and their status",
        "invitePortalUser": "invite a client customer contact to the client portal, portal login",
        "approvePortalUser": "approve a pending client portal access request",
        "revokePortalUser": "revoke end a client's portal access, sign a portal user out",
        "getPortalSummary": "client portal overview, portal users active invited pending, portal sign-ins",
        "listStoredApis": "stored saved external outside APIs, HTTP API connections and credentials to call",
        "saveStoredApi": (
            "save add store an external REST HTTP API with its base URL, bearer token api key credentials, "
            "allowed hosts methods"
        ),
        "deleteStoredApi": "delete remove a stored saved API connection and its credentials",
        "executeApiCall": (
            "call an external stored API, make send an HTTP request GET POST to an endpoint, REST API "
            "request with the saved credentials"
        ),
        "findIntegrationsByTag": (
            "which integrations services apps can be connected for calendar accounting chat crm, find an "
            "integration"
        ),
        "listConnectedIntegrations": (
            "my connected integrations, outside accounts linked with OAuth, is a connection token working "
            "expired"
        ),
        "connectIntegration": (
            "connect link sign in my Google Microsoft Xero Slack account with OAuth, authorize an integration"
        ),
        "disconnectIntegration": "disconnect unlink revoke an OAuth integration connected account",
        "sendOtpCode": (
            "send e-mail me a one-time step-up verification security code, OTP, resend the code, "
            "authenticator app not at hand"
        ),
        "checkOtpCode": (
            "check verify my one-time step-up code OTP 2FA two-factor, six-digit code from the "
            "authenticator app or e-mail, step-up required"
        ),
        "listCustomFields": (
            "custom fields extra fields user-defined attributes of contacts deals tasks, which are defined, "
            "their types choices dropdown, a record's custom field values"
        ),
        "manageCustomFields": (
            "add create rename archive restore delete a custom field extra attribute of contacts deals "
            "tasks, dropdown choices, make a custom field required"
        ),
        "setCustomFieldValues": (
            "set fill in change clear a custom field extra field value on a contact deal task record"
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
            "searchActivityLog",
            "getActivityDetail",
            "listRecentlyDeleted",
            "sendOtpCode",
            "checkOtpCode",
        ),
        # A customer's VAT number on an invoice; bank details are checked from the reference profile.
        "billing": ("validateTaxId",),
        # The service itself: what we use and pay, its help, its operators, its mobile app.
        "account": (
            "getBillingSummary",
            "checkRates",
            "searchHelpArticles",
            "createSupportTicket",
            "assessFeasibility",
            "gatherMobileBuildConfig",
            "getMobileAppInfra",
            "getMobileBrandingToolkit",
            "listApiKeys",
            "getWorkspaceSummary",
        ),
        "data": (
            "validateDataImport",
            "commitDataImport",
            "bulkImportContacts",
            "exportDataCsv",
            "requestDataExport",
            "getDataExportStatus",
            # The fields a workspace adds to its contacts, deals and tasks, and their values (the
            # admin profile is full: E106).
            "listCustomFields",
            "manageCustomFields",
            "setCustomFieldValues",
            # A person's data across the workspace (apps.core.personaldata, filled by data rights).
            "examinePersonalData",
            "erasePersonalData",
        ),
        # Files' and documents' contents (the files and documents to read are their areas' tools).
        "media": ("extractDocumentText", "transcribeAudio", "analyzeImage"),
        # The client portal: its users, and what is shared with them (the areas' share tools).
        "portal": (
            "listPortalUsers",
            "invitePortalUser",
            "approvePortalUser",
            "revokePortalUser",
            "getPortalSummary",
        ),
        # Other services: stored HTTP APIs and OAuth integrations.
        "integrations": (
            "listStoredApis",
            "saveStoredApi",
            "deleteStoredApi",
            "executeApiCall",
            "findIntegrationsByTag",
            "listConnectedIntegrations",
            "connectIntegration",
            "disconnectIntegration",
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
        # Connection links (connectIntegration) nobody completed, a day after they expired.
        "forget-integration-grants": areas.Periodic(
            "apps.platform.tasks.forget_old_integration_grants", crontab(hour=3, minute=41)
        ),
    },
    settings={
        # Days a committed or expired import plan is kept (its rows, problems and duplicates quote
        # the file's people) before the nightly purge deletes it.
        "ATRIUM_PLATFORM_IMPORT_PLAN_DAYS": env.int("ATRIUM_PLATFORM_IMPORT_PLAN_DAYS", 14, min=0),
        # executeApiCall: the time limits of a call (the whole answer read within the first), the
        # most bytes of an answer read, and the most redirects followed.
        "ATRIUM_STORED_API_TIMEOUT_SECONDS": env.float("ATRIUM_STORED_API_TIMEOUT_SECONDS", 20.0, min=0.1),
        "ATRIUM_STORED_API_CONNECT_TIMEOUT_SECONDS": env.float(
            "ATRIUM_STORED_API_CONNECT_TIMEOUT_SECONDS", 5.0, min=0.1
        ),
        "ATRIUM_STORED_API_MAX_RESPONSE_BYTES": env.int(
            "ATRIUM_STORED_API_MAX_RESPONSE_BYTES", 1_000_000, min=1
        ),
        "ATRIUM_STORED_API_MAX_REDIRECTS": env.int("ATRIUM_STORED_API_MAX_REDIRECTS", 5, min=0),
        # Integrations (apps.platform.providers): the OAuth client of each provider offered, as a
        # JSON object {"google": {"client_id": ..., "client_secret": ...}}; a provider's URLs may
        # be replaced there too.
        "ATRIUM_INTEGRATIONS": env.json("ATRIUM_INTEGRATIONS", {}, expect=dict),
        # How long a connection link works, and the time limit of each call to a provider.
        "ATRIUM_INTEGRATION_GRANT_SECONDS": env.int("ATRIUM_INTEGRATION_GRANT_SECONDS", 900, min=60),
        "ATRIUM_INTEGRATION_TIMEOUT_SECONDS": env.float("ATRIUM_INTEGRATION_TIMEOUT_SECONDS", 15.0, min=0.1),
    },
)

# Custom fields: the kit's interface (the areas' tools give and read values) and the receivers
# that delete a record's values with it.
fields.install()
