"""The Documents area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, Forbidden, NotFound, NothingToChange, ValidationFailed


class VersionConflict(Conflict):
    """A change made to a version of the document that is no longer its latest."""

    code = "VERSION_CONFLICT"
    msg_format = _(
        "Document {document} is at version {version}, not {expected}: someone saved it meanwhile. Read it "
        "again with getDocument and apply your change to the new version."
    )


class VersionNotFound(NotFound):
    msg_format = _("Document {document} has no version {number}; it has versions 1 to {latest}.")


class TitleEmpty(ValidationFailed):
    message = _("The title is empty; give the document a title.")


class TitleTooLong(ValidationFailed):
    message = _("The title is longer than 300 characters.")


class UnknownFormat(ValidationFailed):
    msg_format = _("format: one of {formats}.")


class ContentTooLong(ValidationFailed):
    msg_format = _("The content is {length} characters; documents hold at most {most}. Split it up.")


class HtmlTooLong(ValidationFailed):
    msg_format = _("The document would be {length} characters of HTML; the most is {most}. Split it up.")


class NoTitleOrContent(NothingToChange):
    message = _("Say what to change: `title` and/or `content`.")


class ExportNotAllowed(Forbidden):
    message = _("Exports are saved in Files, and your role may not add files there.")
