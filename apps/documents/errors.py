from apps.core.errors import Conflict, NotFound


class VersionConflict(Conflict):
    code = "VERSION_CONFLICT"


class VersionNotFound(NotFound):
    pass
