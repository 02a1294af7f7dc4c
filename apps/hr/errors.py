"""The HR area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, Forbidden, ValidationFailed

# Who may act for whom: a person for themselves, HR for everyone.


class NotYourClock(Forbidden):
    message = _("You clock in and out for yourself only.")


class NotYourTimeSheet(Forbidden):
    message = _("You see your own time entries only.")


class NotYourLeave(Forbidden):
    message = _("You may request leave for yourself only; HR requests it for others.")


class NotYourBalance(Forbidden):
    message = _("Only HR, the employee and their line manager see a leave balance.")


class NotYourAdjustment(Forbidden):
    message = _("Only HR and the employee's line manager adjust a leave balance, never their own.")


class NotTheirApprover(Forbidden):
    message = _("Only HR and the employee's line manager decide on their leave.")


class ApproverIsRequester(Forbidden):
    message = _("An approver is never the requester: someone else must decide on this leave.")


class NotYourOnboardingItem(Forbidden):
    message = _("Only the item's owner, the new employee or HR tick onboarding items.")


# Reviews, grievances and hiring.


class AssessmentLocked(Conflict):
    code = "ASSESSMENT_LOCKED"
    msg_format = _(
        "Your {kind} assessment of review {review} was submitted on {submitted:%Y-%m-%d} and is locked; "
        "it cannot be changed."
    )


class GrievanceClosed(Conflict):
    code = "GRIEVANCE_CLOSED"
    msg_format = _("Grievance {reference} is closed; a new concern is filed as a new grievance.")


class DuplicateCandidate(Conflict):
    """A candidate added with the address of one already on the pipeline."""

    code = "DUPLICATE_CANDIDATE"
    msg_format = _(
        "Candidate {candidate} on pipeline {pipeline!r} has the address {email} already: update them "
        "with updateHiringCandidate instead."
    )


class AddressOfAnotherCandidate(DuplicateCandidate):
    """A candidate given the address of another on the same pipeline."""

    msg_format = _("Candidate {candidate} on this pipeline has the address {email} already.")


class CandidateAnonymised(Conflict):
    code = "CANDIDATE_ANONYMISED"
    msg_format = _(
        "Candidate {candidate} was anonymised on {anonymised:%Y-%m-%d} (retention rule); add them anew "
        "if they apply again."
    )


class DecisionNeedsBasis(ValidationFailed):
    msg_format = _(
        "basis: {stage!r} is a hiring decision; a person makes it: give their reason in `basis` (any "
        "ranking is advice only)."
    )


class CandidateInOffer(Conflict):
    code = "CANDIDATE_IN_OFFER"
    msg_format = _(
        "Candidate {candidate} has an open offer (stage {stage!r}); move them on (hired, or another "
        "stage with moveHiringCandidateStage) before deleting them."
    )


class CandidateOnboarding(CandidateInOffer):
    msg_format = _(
        "Candidate {candidate} is being onboarded as an employee (an open onboarding checklist); "
        "delete the candidate once onboarding is complete."
    )
