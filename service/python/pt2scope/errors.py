"""Exceptions: one class per problem type the library defines.

Every failure the library (over ctypes) or pt2scoped (problem+json) reports
is an RFC 9457 problem document whose `type` ends in a stable slug
("not-a-zip"); the library decides the slug, title and status, and this
module only names a class for each, so the same failure raises the same
class whichever backend asked.
"""

PROBLEM_BASE = "https://pt2scope.dev/problems/"


class Pt2ScopeError(Exception):
    """A failure pt2scope reported; `problem` is its problem document (a dict)."""

    slug = None

    def __init__(self, problem):
        self.problem = dict(problem)
        self.type = self.problem.get("type")
        self.title = self.problem.get("title")
        self.status = self.problem.get("status")
        self.detail = self.problem.get("detail")
        super().__init__(self.detail or self.title or self.type or "pt2scope error")


def _define(name, slug, doc):
    cls = type(name, (Pt2ScopeError,), {"slug": slug, "__doc__": doc})
    globals()[name] = cls
    return cls


# slug -> class; the slugs are the library's (pt2_status_slug), an interface.
_CLASSES = {
    c.slug: c
    for c in (
        _define("InternalError", "internal", "A failure inside pt2scope (out of memory, a bug)."),
        _define("Unreadable", "unreadable", "The package file could not be opened or read."),
        _define("NotAZip", "not-a-zip", "The file is not a zip archive."),
        _define("Truncated", "truncated", "A zip, but truncated or corrupt."),
        _define("NotAPt2", "not-a-pt2", "A valid zip that is not a .pt2 package."),
        _define("MetadataInvalid", "metadata-invalid", "A metadata document is malformed."),
        _define("TooLarge", "too-large", "A hard limit was exceeded."),
        _define("BadRequest", "bad-request", "A bad argument or request."),
        _define("NotFound", "not-found", "A named thing does not exist."),
        _define("Unsupported", "unsupported", "Recognised but not supported."),
        _define("OutsideRoot", "outside-root", "A path leaves every model root."),
        _define("Overloaded", "overloaded", "No capacity now; retry later."),
        _define("MethodNotAllowed", "method-not-allowed", "The operation does not apply here."),
        _define("UnsupportedMediaType", "unsupported-media-type", "Input of a type not accepted."),
        _define("DocsNotBuilt", "docs-not-built", "A document this build left out."),
        _define("TorchSaveCheckpoint", "torch-save-checkpoint", "A torch.save checkpoint, not a .pt2."),
        _define("Forbidden", "forbidden", "The server may not read it."),
        _define("Unauthorized", "unauthorized", "No valid credentials."),
        _define("HostNotAllowed", "host-not-allowed", "A Host the server does not answer for."),
        _define("RemoteRefused", "remote-refused", "A URL (or a redirect hop) is not allowed."),
        _define("RemoteUnreachable", "remote-unreachable", "The remote server failed or erred."),
        _define("RemoteNoRange", "remote-no-range", "No Range support and too large to download."),
        _define("RemoteChanged", "remote-changed", "The remote object changed while read."),
        _define("RemoteTimeout", "remote-timeout", "The remote server did not answer in time."),
    )
}


def error_class(slug):
    """The class for a problem slug; Pt2ScopeError for one this version does not know."""
    return _CLASSES.get(slug, Pt2ScopeError)


def from_problem(problem):
    """The exception for a problem document (a dict with "type")."""
    t = problem.get("type") if isinstance(problem, dict) else None
    slug = t[len(PROBLEM_BASE):] if isinstance(t, str) and t.startswith(PROBLEM_BASE) else None
    if not isinstance(problem, dict):
        problem = {"type": None, "detail": str(problem)}
    return error_class(slug)(problem)


__all__ = ["Pt2ScopeError", "error_class", "from_problem"] + sorted(c.__name__ for c in _CLASSES.values())
