"""deleteHiringCandidate: a candidate deleted for good with their personal data (CV file, notes,
stage history), after the user confirms; refused during an open offer or onboarding, before anyone
is asked; only with HR's hiring permission."""

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, refused
from apps.files.models import File
from apps.files.tests.factories import FileFactory
from apps.hr.models import Candidate, StageChange
from apps.hr.services import hiring, onboarding
from apps.hr.tests.factories import EmployeeFactory, candidate, hiring_pipeline

pytestmark = pytest.mark.django_db

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _stage(pipeline, name):  # type: ignore[no-untyped-def]
    return pipeline.stages.get(name=name)


def test_hr_deletes_a_candidate_with_their_cv_notes_and_stage_history(people):
    admin = people["admin"]
    pipeline = hiring_pipeline(admin)
    cv = FileFactory(actor=admin, name="cv-ola.txt", text="Ola Nordmann. Rust, Go.")
    ola = candidate(admin, pipeline, name="Ola Nordmann", notes="strong systems background", cv_file_id=cv.pk)
    hiring.candidate_move(actor=admin, candidate=ola, stage=_stage(pipeline, "Interview"))
    moves = StageChange.objects.filter(candidate=ola).count()
    assert moves >= 1

    answer = ok(admin, "deleteHiringCandidate", {"candidateId": ola.pk}, **CONFIRM)

    assert answer == {"candidateId": ola.pk, "deleted": True, "stageChanges": moves, "cvFiles": 1}
    assert not Candidate.objects.filter(pk=ola.pk).exists()
    assert not StageChange.objects.filter(candidate_id=ola.pk).exists()
    assert not File.objects.filter(pk=cv.pk).exists()
    assert "was not found" in refused(admin, "getHiringCandidate", {"candidateId": ola.pk})


def test_without_a_confirmation_nothing_is_deleted(people):
    admin = people["admin"]
    ola = candidate(admin, hiring_pipeline(admin))

    message = refused(admin, "deleteHiringCandidate", {"candidateId": ola.pk})

    assert "Confirmation required" in message and "Nothing was done" in message
    assert Candidate.objects.filter(pk=ola.pk).exists()


def test_an_open_offer_is_refused_before_anyone_is_asked(people):
    admin = people["admin"]
    pipeline = hiring_pipeline(admin)
    offered = candidate(admin, pipeline)
    hiring.candidate_move(
        actor=admin, candidate=offered, stage=_stage(pipeline, "Offer"), basis="best interview"
    )
    asked = []

    message = refused(
        admin,
        "deleteHiringCandidate",
        {"candidateId": offered.pk},
        capabilities={"elicitation": {}},
        elicit=lambda text, schema: asked.append(text) or confirmed(text, schema),
    )

    assert "open offer" in message and "Offer" in message and asked == []
    assert Candidate.objects.filter(pk=offered.pk).exists()
    # Hired: the offer is concluded, and the candidate may go.
    hiring.candidate_move(actor=admin, candidate=offered, stage=_stage(pipeline, "Hired"), basis="accepted")
    assert ok(admin, "deleteHiringCandidate", {"candidateId": offered.pk}, **CONFIRM)["deleted"] is True


def test_a_candidate_being_onboarded_is_refused(people):
    admin, owner = people["admin"], people["owner"]
    pipeline = hiring_pipeline(admin)
    hired = candidate(admin, pipeline, email="new.hire.onboarding@example.net")
    hiring.candidate_move(actor=admin, candidate=hired, stage=_stage(pipeline, "Hired"), basis="accepted")
    employee = EmployeeFactory(actor=owner, email="new.hire.onboarding@example.net")
    onboarding.checklist_start(actor=owner, employee=employee, template=onboarding.template_standard())

    message = refused(admin, "deleteHiringCandidate", {"candidateId": hired.pk}, **CONFIRM)

    assert "being onboarded" in message
    assert Candidate.objects.filter(pk=hired.pk).exists()


def test_bad_input_and_a_role_without_hiring(people):
    admin = people["admin"]
    assert "was not found" in refused(admin, "deleteHiringCandidate", {"candidateId": 10**9}, **CONFIRM)
    assert refused(admin, "deleteHiringCandidate", {"candidateId": 0}, **CONFIRM)
    ola = candidate(admin, hiring_pipeline(admin))
    for person in (people["member"], people["viewer"]):
        with pytest.raises(ToolNotFound):
            call(person, "deleteHiringCandidate", {"candidateId": ola.pk}, **CONFIRM)
    assert Candidate.objects.filter(pk=ola.pk).exists()
