"""The Platform area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, NotFound, ServiceUnavailable, ValidationFailed


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
