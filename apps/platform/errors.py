"""The Platform area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import (
    AppError,
    Conflict,
    Forbidden,
    NotFound,
    RateLimited,
    ServiceUnavailable,
    ValidationFailed,
)


class UnknownCountry(ValidationFailed):
    field = "country"
    msg_format = _(
        "{country!r} is not a country: give its ISO 3166 code (DE, DEU or 276) or its English name."
    )


class UnknownRegion(ValidationFailed):
    field = "region"
    msg_format = _("{region!r} is not a region; the regions are: {known}.")


class NoTaxIds(ValidationFailed):
    field = "country"
    msg_format = _("No tax or identity numbers of {country} are checked here; validateTaxId knows {known}.")


class UnknownTaxIdKind(ValidationFailed):
    field = "kind"
    msg_format = _("{kind!r} is not a number checked for {country}; its kinds are: {known}.")


class NoHolidays(ValidationFailed):
    field = "country"
    msg_format = _("The public holidays of {country} are not known here.")


class UnknownSubdivision(ValidationFailed):
    field = "subdivision"
    msg_format = _(
        "{subdivision!r} is not a subdivision of {country} with holidays of its own; they are: {known}."
    )


class HolidayYearOutOfRange(ValidationFailed):
    field = "year"
    msg_format = _("The public holidays of {country} are known from {first} to {last}, not for {year}.")


class NothingToValidate(ValidationFailed):
    message = _("Give an iban, a bic, or a country with bankCode and accountNumber.")


# --- imports (apps.platform.imports) ---------------------------------------------------------------


class UnknownImportKind(ValidationFailed):
    field = "entityType"
    msg_format = _("{kind!r} cannot be imported; the kinds that can are: {known}.")


class NoImportSource(ValidationFailed):
    message = _("Give the file to import: fileId (from listFiles) or csvText, one of them.")


class ImportUnreadable(ValidationFailed):
    msg_format = _("The file could not be read: {problem}.")


class ImportNotUtf8(ImportUnreadable):
    problem_format = _("it is not UTF-8 text (byte {byte}); save it as CSV UTF-8 or XLSX")


class ImportNotXlsx(ImportUnreadable):
    problem_format = _("it is not an XLSX workbook ({reason})")


class ImportBinary(ImportUnreadable):
    problem_format = _("it holds binary data, not CSV text; give a CSV or XLSX file")


class ImportFormulaNotComputed(ImportUnreadable):
    problem_format = _(
        "the cell {cell} holds a formula whose value was never computed (the workbook was written by"
        " a program, not saved by a spreadsheet program); open and save it in one, or give it as CSV"
    )


class ImportTooManyRows(ValidationFailed):
    msg_format = _("The file has more than {most} rows; split it into files of at most {most} rows each.")


class ImportFileTooLarge(ValidationFailed):
    msg_format = _("The file is larger than {megabytes} MB; split it into smaller files.")


class ImportXlsxTooLarge(ValidationFailed):
    msg_format = _(
        "The workbook unpacks to more than {megabytes} MB; save its first sheet as CSV, or split it."
    )


class ImportTooManyColumns(ValidationFailed):
    msg_format = _("A row of the file has more than {most} columns; keep only the columns to import.")


class ImportHasNoHeader(ValidationFailed):
    msg_format = _("The file's first row must name its columns; a {kind} import knows: {known}.")


class ImportHasNoRows(ValidationFailed):
    message = _("The file has a header row but no rows to import.")


class UnknownImportColumns(ValidationFailed):
    msg_format = _("Not columns of a {kind} import: {unknown}. Its columns are: {known}.")


class ImportColumnTwice(ValidationFailed):
    msg_format = _("The column {column!r} is named twice in the header.")


class ImportNotFound(NotFound):
    msg_format = _(
        "Import {token!r} was not found: validateDataImport makes one, and only the person who "
        "validated it commits it."
    )


class ImportExpired(Conflict):
    msg_format = _("Import {token!r} expired at {expired}; validate the file again.")


class ImportHasErrors(Conflict):
    msg_format = _(
        "{invalid} rows of import {token!r} have problems (the first: row {row}, {column}: {problem}); "
        "fix the file and validate it again, or commit with skipInvalidRows to import the other rows."
    )


class ImportRowRefused(Conflict):
    msg_format = _(
        "Row {row} can no longer be imported ({column}: {problem}); nothing was imported. Validate "
        "the file again."
    )


class ImportRowRefusedPartway(ImportRowRefused):
    msg_format = _(
        "Row {row} can no longer be imported ({column}: {problem}); the {done} rows before its batch "
        "were imported, the rest not. Validate the file again: what was imported is found as duplicates."
    )


class ImportKeyReused(Conflict):
    msg_format = _("The importKey {key!r} was used for another file on {at}; give a new key for this one.")


class ValueWithoutColumn(ValidationFailed):
    msg_format = _("the value {value!r} is in a column the header does not name")


# --- exports (apps.platform.exports) ---------------------------------------------------------------


class UnknownExportKind(ValidationFailed):
    field = "entityType"
    msg_format = _("{kind!r} cannot be exported; the kinds that can are: {known}.")


class ExportNeedsFiles(ValidationFailed):
    msg_format = _(
        "An export of more than {most} rows is kept as a file, and your role may not add files; "
        "narrow it with a query, or ask someone who may."
    )


class ExportNotFound(NotFound):
    msg_format = _("Export {export} was not found: requestDataExport starts one, for its requester alone.")


class UnknownRole(ValidationFailed):
    field = "role"
    msg_format = _("{role!r} is not a role of this workspace; listRoles gives their keys.")


class RoleKeyRequired(ValidationFailed):
    field = "role"
    msg_format = _("Say which role to {action}: its key, from listRoles.")


# --- documents and media (apps.platform.media) ----------------------------------------------------


class NoMediaSource(ValidationFailed):
    message = _("Give what to read: fileId (from listFiles) or documentId (from listDocuments), one of them.")


class MediaTooLarge(ValidationFailed):
    field = "fileId"
    msg_format = _("{name!r} is {megabytes} MB; {tool} reads files of at most {most} MB.")


class NotAudio(ValidationFailed):
    field = "fileId"
    msg_format = _("{name!r} is {mime_type}, not audio or video; transcribeAudio reads {known}.")


class NotAnImage(ValidationFailed):
    field = "fileId"
    msg_format = _("{name!r} is {mime_type}, not an image; analyzeImage reads {known}.")


class ImageUnreadable(ValidationFailed):
    field = "fileId"
    msg_format = _("{name!r} could not be read as an image ({kind}); it may be damaged or mislabelled.")


class ImageTooManyPixels(ValidationFailed):
    field = "fileId"
    msg_format = _(
        "{name!r} is {width} x {height} pixels; analyzeImage reads images of at most {most} megapixels."
    )


class TextNeedsOcr(ValidationFailed):
    field = "ocr"
    msg_format = _(
        "{name!r} is a scan ({mime_type}) with no text layer: only OCR reads it. Call again with ocr "
        '"auto" or "always".'
    )


class NothingForOcr(ValidationFailed):
    field = "ocr"
    msg_format = _('{name!r} is {mime_type}: OCR reads only images and PDFs. Call again with ocr "auto".')


class ModelNotConfigured(AppError):
    code = "MODEL_NOT_CONFIGURED"
    http_status = 503
    msg_format = _(
        "{tool} needs a model, and this service has none for it: {problem}. Ask the service's operators "
        "to configure one; nothing was charged."
    )


class ModelNeedsApiKey(AppError):
    code = "MODEL_NEEDS_API_KEY"
    http_status = 403
    msg_format = _(
        "{tool} calls a model that is paid from an API key's budget, and this connection has no API "
        "key (an OAuth connection has none): connect with a personal access token and an API key."
    )


class ModelCallFailed(AppError):
    code = "MODEL_CALL_FAILED"
    http_status = 502
    msg_format = _("The model gave no answer ({problem}); nothing was charged. Try again later.")


# --- the client portal (apps.platform.portal) ------------------------------------------------------


class PortalNeedsEmail(ValidationFailed):
    field = "email"
    msg_format = _("Contact {contact} has no e-mail address: give the address to invite in `email`.")


class ContactHasPortalUser(Conflict):
    msg_format = _(
        "Contact {contact} already has portal user {portal_user_id} ({state}); see it with listPortalUsers."
    )


class PortalUserRevoked(Conflict):
    msg_format = _(
        "Portal user {portal_user_id} was revoked; a revoked portal user is not approved again: "
        "invite them again with invitePortalUser."
    )


# --- the service itself (apps.platform.tools.service) ----------------------------------------------


class BillingPeriodTooLong(ValidationFailed):
    field = "start"
    msg_format = _("The period is at most {days} days; ask for {start} to {end} in parts.")


class UnknownModel(ValidationFailed):
    field = "model"
    msg_format = _("{model!r} is not a model the gateway prices; the priced ones are: {known}.")


class HelpUnavailable(ServiceUnavailable):
    message = _("The help pages are not installed where the service runs; ask its operators.")


class SupportTicketsTooMany(RateLimited):
    msg_format = _(
        "You sent {count} tickets to the service's operators in the last hour, the most there may be; "
        "add to one of them by replying to its e-mail, or try again later."
    )


class SupportTicketsTooManyToday(RateLimited):
    msg_format = _(
        "This workspace sent {count} tickets to the service's operators today, the most there may be; "
        "try again tomorrow."
    )


class BadAppId(ValidationFailed):
    field = "appId"
    msg_format = _(
        "{app_id!r} is not an app id: give a reverse domain name, such as com.example.atrium (letters, "
        "digits and underscores, parts separated by dots, at least two)."
    )


# --- activity (apps.platform.activity) --------------------------------------------------------------


class UnknownActivityArea(ValidationFailed):
    field = "area"
    msg_format = _("{area!r} is not an area with activity; the areas are: {known}.")


class BadActivityCursor(ValidationFailed):
    field = "cursor"
    message = _("cursor: give the nextCursor of the previous page of searchActivityLog, as it was.")


class ActivityTimesReversed(ValidationFailed):
    field = "since"
    message = _("since: must be before until.")


class ActivityOfOthers(Forbidden):
    message = _(
        "You may read only your own activity: leave personId out, or ask an admin (platform.audit) "
        "for someone else's."
    )


class ActivityNeedsRecordId(ValidationFailed):
    message = _("Give recordKind and recordId together, or neither.")


class ActivityNotFound(NotFound):
    msg_format = _(
        "Activity entry {entry!r} was not found, or you may not read it. Find the entries with "
        "searchActivityLog."
    )


class KindNotTrashed(ValidationFailed):
    field = "entityType"
    msg_format = _("{kind!r} records do not go to a trash; the kinds that do: {known}.")


# --- stored APIs (apps.platform.apicalls) ----------------------------------------------------------


class StoredApiNotFound(NotFound):
    msg_format = _("No stored API is named {api!r}; listStoredApis gives their names.")


class AuthNameRequired(ValidationFailed):
    field = "authName"
    msg_format = _("A {kind} credential needs authName: {what}.")


class AuthNameNotUsed(ValidationFailed):
    field = "authName"
    msg_format = _("authName is only for the header, query and basic kinds of credential, not {kind}.")


class BadHostName(ValidationFailed):
    field = "allowedHosts"
    msg_format = _("{host!r} is not a host name (give names such as api.example.com, or host:port).")


class ApiHostNotAllowed(ValidationFailed):
    field = "path"
    msg_format = _(
        "{host!r} is not a host of the stored API {api!r} (its hosts: {hosts}); nothing was sent. "
        "An admin adds hosts with saveStoredApi."
    )


class ApiSchemeChanged(ValidationFailed):
    field = "path"
    msg_format = _("The address must keep the stored API's scheme, {scheme}; nothing was sent.")


class ApiUserInfo(ValidationFailed):
    field = "path"
    message = _(
        "An address with a user name or password in it (user@host) is refused; the stored API's own "
        "credential is added by the service. Nothing was sent."
    )


class ApiPathUnsafe(ValidationFailed):
    field = "path"
    message = _(
        "The path must be relative to the stored API's base URL (or a full URL on one of its hosts), "
        "without spaces, backslashes or control characters, and not start with //. Nothing was sent."
    )


class ApiMethodNotAllowed(ValidationFailed):
    field = "method"
    msg_format = _(
        "{method} is not allowed on the stored API {api!r}; it allows {allowed}. Nothing was sent."
    )


class ApiHeaderRefused(ValidationFailed):
    field = "headers"
    msg_format = _(
        "The header {header!r} cannot be given: credentials and the connection's own headers are set "
        "by the service. Nothing was sent."
    )


class ApiHeaderValue(ValidationFailed):
    field = "headers"
    msg_format = _("The value of the header {header!r} must be one line of text. Nothing was sent.")


class ApiBodyNotTaken(ValidationFailed):
    field = "body"
    msg_format = _("A {method} request takes no body. Nothing was sent.")


class ApiAddressRefused(ValidationFailed):
    msg_format = _("The call to {api!r} was refused: {problem}")


class ApiRedirectRefused(ApiAddressRefused):
    problem_format = _("it redirected to {location}, which is not reached ({reason}).")


class ApiUnreachable(ServiceUnavailable):
    msg_format = _("The stored API {api!r} did not answer usefully: {problem}.")


class ApiTooManyRedirects(ApiUnreachable):
    problem_format = _("more than {most} redirects")


class ApiNoAnswer(ApiUnreachable):
    problem_format = _("no answer ({kind})")


class ApiAnswerBroke(ApiUnreachable):
    problem_format = _("the answer broke off ({kind})")


class ApiSecretUnreadable(Conflict):
    msg_format = _(
        "The credential of the stored API {api!r} cannot be read with the service's keys; an admin "
        "enters it again with saveStoredApi (replaceSecret)."
    )


class ApiQueryKeyGiven(ValidationFailed):
    field = "query"
    msg_format = _(
        "{name!r} is the stored API's credential parameter, added by the service. Nothing was sent."
    )


# --- integrations (apps.platform.connections) ------------------------------------------------------


class UnknownIntegration(ValidationFailed):
    field = "provider"
    msg_format = _("{provider!r} is not an integration here; they are: {known}.")


class IntegrationNotConfigured(Conflict):
    msg_format = _(
        "{provider} cannot be connected yet: this service has no OAuth client id for it. The "
        "service's operators register one with {provider} and set it in ATRIUM_INTEGRATIONS."
    )


class IntegrationNotConnected(NotFound):
    msg_format = _("You have not connected {provider}; connectIntegration connects it.")


class IntegrationGrantInvalid(Conflict):
    message = _(
        "This connection link is not good: it was used already, it expired, or someone else started "
        "it. Start again with connectIntegration."
    )


class IntegrationRefused(Conflict):
    msg_format = _("{provider} did not complete the connection: {problem}.")


class IntegrationNoAnswer(IntegrationRefused):
    problem_format = _("no answer ({kind})")


class IntegrationNoCode(IntegrationRefused):
    problem_format = _("the answer held no authorization code")


class IntegrationNoToken(IntegrationRefused):
    problem_format = _("the token endpoint gave no access token")


class IntegrationExpired(IntegrationRefused):
    problem_format = _("the access expired and cannot be renewed; connect it again")


# --- step-up codes (apps/platform/tools/otp.py) -----------------------------------------------------


class OtpNotOnGateway(AppError):
    code = "OTP_NOT_ON_GATEWAY"
    http_status = 409
    message = _(
        "Step-up codes are not taken through the message gateway: a code typed into a message would "
        "be kept in the conversation. Nothing was done; the person gives their code over an MCP "
        "connection (checkOtpCode) or acts in the workspace."
    )


# --- custom fields (apps.platform.fields) ----------------------------------------------------------


class UnknownFieldKind(ValidationFailed):
    field = "kind"
    msg_format = _("{kind!r} has no custom fields; the kinds that have are: {known}.")


class FieldKindNotVisible(ValidationFailed):
    field = "kind"
    msg_format = _("Your role may not see {kind}, so not their custom fields either.")


class FieldKeyRequired(ValidationFailed):
    field = "key"
    msg_format = _("Say which field to {action}: its key, from listCustomFields.")


class FieldKeyInvalid(ValidationFailed):
    field = "key"
    msg_format = _(
        "{key!r} cannot be a field's key: use lower-case letters, digits, - and _, starting with a "
        "letter, at most 50 characters."
    )


class FieldKeyTaken(Conflict):
    msg_format = _("The {kind} already have a field {key!r}; give another key, or update that one.")


class UnknownCustomField(NotFound):
    msg_format = _("The {kind} have no custom field {key!r}; listCustomFields gives their keys.")


class FieldTypeRequired(ValidationFailed):
    field = "type"
    msg_format = _("Give the new field's type: {known}.")


class FieldLabelRequired(ValidationFailed):
    field = "label"
    message = _("Give the new field's label: the name people see.")


class FieldChoicesRequired(ValidationFailed):
    field = "choices"
    message = _("A choice field needs its choices: at least one, each at most 100 characters, none twice.")


class FieldChoicesNotAllowed(ValidationFailed):
    field = "choices"
    msg_format = _("Only a choice field has choices; {key!r} is a {type} field.")


class FieldChoicesInUse(Conflict):
    msg_format = _(
        "Records hold the choices {used} of {key!r}; keep them among its choices, or change those "
        "records first."
    )


class FieldTypeFixed(Conflict):
    msg_format = _(
        "{key!r} is a {type} field and records hold values of it; its type stays. Archive it and add "
        "a new field instead."
    )


class FieldArchived(Conflict):
    msg_format = _("The field {key!r} is archived; restore it (manageCustomFields) to set its values.")


class FieldValueInvalid(ValidationFailed):
    msg_format = _("{value!r} is not a value of {key!r}: {expected}.")


class FieldValueRequired(ValidationFailed):
    msg_format = _("{key!r} is a required field; it cannot be cleared.")


class FieldValueMissing(FieldValueRequired):
    msg_format = _("{key!r} is a required field: give it a value in customFields.")


class NoFieldValues(ValidationFailed):
    field = "values"
    message = _("Give the values to set: {fieldKey: value}, null to clear one.")


class RecordKindRequired(ValidationFailed):
    field = "kind"
    message = _("Say the record's kind (contacts, deals or tasks) with its recordId.")


# --- personal data (apps.platform.tools.privacy) ---------------------------------------------------


class SubjectRequired(ValidationFailed):
    message = _("Name the person: email (their address) or userId (from listWorkspaceUsers), one of them.")


class NothingHeldAbout(NotFound):
    msg_format = _(
        "The workspace holds nothing about {email}: no person, no record names the address. Check "
        "the address (examinePersonalData shows what is held)."
    )


class ErasureOfSelf(Conflict):
    message = _("You cannot erase your own data here: another admin or owner erases it.")


class ErasureVetoed(Conflict):
    msg_format = _("The data of {email} cannot be erased: {reasons}")


class PersonalExportNeedsFiles(Conflict):
    message = _(
        "The full export is saved as a file of the Files area, which your role may not add to; "
        "call again without asFile to see what is held."
    )
