"""The HR area's failures (apps.core.errors): each names the problem and what to do next."""

from apps.core.errors import Conflict


class AssessmentLocked(Conflict):
    code = "ASSESSMENT_LOCKED"


class GrievanceClosed(Conflict):
    code = "GRIEVANCE_CLOSED"


class DuplicateCandidate(Conflict):
    code = "DUPLICATE_CANDIDATE"


class CandidateAnonymised(Conflict):
    code = "CANDIDATE_ANONYMISED"
