"""The Platform area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, NotFound, ValidationFailed


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
