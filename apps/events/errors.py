"""The Events area's failures (apps.core.errors): each names the problem and what to do next."""

from apps.core.errors import Conflict, ValidationFailed


class SessionClash(Conflict):
    code = "SESSION_CLASH"


class BlockFull(Conflict):
    code = "HOTEL_BLOCK_FULL"


class ImportUnreadable(ValidationFailed):
    code = "IMPORT_UNREADABLE"


class ImportHandleInvalid(ValidationFailed):
    code = "IMPORT_HANDLE_INVALID"


class NoRate(ValidationFailed):
    code = "NO_EXCHANGE_RATE"
