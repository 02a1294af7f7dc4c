"""The Extension Builder's failures (apps.core.errors): each names the problem and what to do next.

The bundle's problems (apps.extensions.lib.bundle) are failures too: a validation gathers them
into the build's report, each with its code and the archive entry it is about."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, PayloadTooLarge, ValidationFailed


class UploadOffsetMismatch(Conflict):
    code = "UPLOAD_OFFSET_MISMATCH"
    msg_format = _(
        "Upload {session}: a chunk at offset {offset}, but the next byte expected is at offset {expected}. "
        "Send the chunk that starts at {expected} (chunks go in order; one already received may be resent)."
    )


class ChunkHashMismatch(ValidationFailed):
    code = "CHUNK_HASH_MISMATCH"
    msg_format = _(
        "Upload {session}: the chunk at offset {offset} does not match its sha256 ({problem}); nothing of it "
        "was kept. Send it again from offset {offset}."
    )


class UploadExpired(Conflict):
    code = "UPLOAD_EXPIRED"
    http_status = 410
    msg_format = _("Upload {session} is {state}; its chunks are gone. Start again with beginBundleUpload.")


class UploadIncomplete(Conflict):
    code = "UPLOAD_INCOMPLETE"
    msg_format = _(
        "Upload {session}: {received} of {size} bytes received; send the rest from offset {received} with "
        "pushBundleChunks, then finalize."
    )


class UploadTooLarge(Conflict):
    code = "UPLOAD_TOO_LARGE"
    msg_format = _(
        "Upload {session}: the chunk at offset {offset} would take the bundle past its declared size of "
        "{size} bytes."
    )


class BundleHashMismatch(Conflict):
    code = "BUNDLE_HASH_MISMATCH"
    msg_format = _(
        "Upload {session}: the bytes received hash to {actual}, not the declared sha256 {declared}; no "
        "build was made. Start again with beginBundleUpload and the right bytes."
    )


class BundleTooLarge(PayloadTooLarge):
    code = "EXTENSION_BUNDLE_TOO_LARGE"
    msg_format = _("A bundle of {size} bytes is over the limit of {limit} bytes (getExtensionRules).")


class LogoRefused(ValidationFailed):
    code = "EXTENSION_LOGO_REFUSED"
    field = "contentBase64"
    msg_format = _(
        "The logo is refused: {problem}. A PNG or SVG of at most {limit} bytes (getExtensionRules)."
    )


class BuildNotValidating(Conflict):
    code = "EXTENSION_BUILD_DECIDED"
    msg_format = _(
        "Build {id} is already {status}; a build is validated once. Upload a new bundle for a new version."
    )


class BuildNotApproved(Conflict):
    code = "EXTENSION_BUILD_NOT_APPROVED"
    msg_format = _("Build {id} is {status}; only an approved build is published or served.")


# --- the bundle's problems, gathered in a build's report ------------------------------------------


class BundleProblem(AppError):
    """A problem of an uploaded bundle: the build is rejected with it in its report."""

    code = "EXTENSION_BUNDLE_INVALID"
    http_status = 422
    msg_format = _("The bundle is not valid: {problem}.")


class NotAZip(BundleProblem):
    code = "BUNDLE_NOT_A_ZIP"
    msg_format = _("The bundle is not a zip archive ({problem}).")


class UnsafePath(BundleProblem):
    code = "BUNDLE_UNSAFE_PATH"
    msg_format = _(
        "Entry {entry!r} is {problem}: every path stays inside the bundle (relative, no '..', no drive)."
    )


class SymlinkEntry(BundleProblem):
    code = "BUNDLE_SYMLINK"
    msg_format = _("Entry {entry!r} is a symbolic link; a bundle holds plain files only.")


class ZipBomb(BundleProblem):
    code = "BUNDLE_ZIP_BOMB"
    msg_format = _("Entry {entry!r} expands {ratio}:1 (the limit is {limit}:1): refused as a zip bomb.")


class BundleSizeCap(BundleProblem):
    code = "BUNDLE_UNPACKED_TOO_LARGE"
    msg_format = _(
        "Entry {entry!r} takes the unpacked bundle past {limit} bytes; make the extension smaller."
    )


class TooManyFiles(BundleProblem):
    code = "BUNDLE_TOO_MANY_FILES"
    msg_format = _("The bundle holds {count} entries; at most {limit}. Entry {entry!r} is one too many.")


class ManifestInvalid(BundleProblem):
    code = "BUNDLE_MANIFEST_INVALID"
    msg_format = _("Entry {entry!r}, at {where}: {problem} (the manifest's JSON Schema: getExtensionRules).")


class ManifestMissing(ManifestInvalid):
    msg_format = _("Entry {entry!r} is missing: every bundle has its manifest at its root.")


class NotJson(ManifestInvalid):
    msg_format = _("Entry {entry!r} is not JSON in UTF-8 ({problem}).")


class VersionNotSemver(ManifestInvalid):
    msg_format = _("Entry {entry!r}: version {version!r} is not semver (MAJOR.MINOR.PATCH, e.g. 1.2.0).")


class EntryMissing(ManifestInvalid):
    msg_format = _("Entry {entry!r} is the manifest's frame entry file, and the bundle does not hold it.")


class EntryUnreadable(BundleProblem):
    code = "BUNDLE_ENTRY_UNREADABLE"
    msg_format = _("Entry {entry!r} cannot be read ({problem}).")


class VersionNotAbove(BundleProblem):
    code = "EXTENSION_VERSION_NOT_ABOVE"
    msg_format = _(
        "Entry {entry!r}: version {version} is not above {last}, the project's last approved version; "
        "raise it (semver)."
    )


class ScopeNotDeclared(BundleProblem):
    code = "EXTENSION_SCOPE_NOT_DECLARED"
    msg_format = _(
        "Entry {entry!r} requests scope {scope!r}, which the project does not declare; declare it with "
        "setExtensionMeta or drop it."
    )


class UnknownScope(BundleProblem):
    code = "EXTENSION_SCOPE_UNKNOWN"
    msg_format = _(
        "Entry {entry!r}: scope {scope!r} names no data shape getPlatformDataShapes lists "
        "(<shape>:read or <shape>:write)."
    )


class LocaleInvalid(BundleProblem):
    code = "BUNDLE_LOCALE_INVALID"
    msg_format = _("Entry {entry!r}: locale {locale!r} is not a BCP 47 tag (en, pt-BR, zh-Hant).")


class DefaultLocaleUnlisted(LocaleInvalid):
    msg_format = _("Entry {entry!r}: the default locale {locale!r} is not among the supported ones.")


class LocaleFileMissing(LocaleInvalid):
    msg_format = _("Entry {entry!r} is missing: locale {locale!r} is supported, so it needs its file.")


class LocaleNotObject(LocaleInvalid):
    msg_format = _("Entry {entry!r}: locale {locale!r}'s file is not a JSON object of keys and texts.")


class LocaleKeysMissing(LocaleInvalid):
    msg_format = _(
        "Entry {entry!r}: locale {locale!r} misses the keys {keys} (every locale has the required keys "
        "and the default locale's)."
    )


class RemoteCode(BundleProblem):
    code = "BUNDLE_REMOTE_CODE"
    msg_format = _(
        "Entry {entry!r} line {line}: {problem}; an extension runs only its own code (no eval, no "
        "new Function, no script from another host)."
    )
