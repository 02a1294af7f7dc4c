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


class NoFieldValues(ValidationFailed):
    field = "values"
    message = _("Give the values to set: {fieldKey: value}, null to clear one.")


class RecordKindRequired(ValidationFailed):
    field = "kind"
    message = _("Say the record's kind (contacts, deals or tasks) with its recordId.")
