"""Export and erasure of one person's data reach every HR model of reviews, training, policies,
grievances and hiring (docs/privacy.md): the grievance they filed (special-category data), their
reviews and assessments, training, acknowledgments, and their candidacy with its CV file; rows
where they only acted keep everything but them."""

import io
import json

from apps.accounts.models import Role, User
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.files.models import File
from apps.files.tests.factories import FileFactory
from apps.hr.models import (
    Assessment,
    Candidate,
    Grievance,
    GrievanceEvent,
    GrievanceRead,
    HiringAdvice,
    PolicyAcknowledgment,
    Review,
    StageChange,
    TrainingRecord,
)
from apps.hr.services import grievances, hiring, policies, reviews, training
from apps.hr.tests.factories import EmployeeFactory, candidate, hiring_pipeline, review

EMAIL = "tara.quill@acme.example"


def test_export_and_erasure_reach_every_talent_model(acme, people):
    owner, admin = people["owner"], people["admin"]
    tara = User.objects.create_user(email=EMAIL, password=None, role=Role.objects.get(key="admin"))
    employee = EmployeeFactory(actor=owner, person_email=EMAIL, full_name="Tara Quill")
    own = review(owner, employee, manager=admin)
    reviews.assessment_submit(actor=tara, review=own, rating=3, text="My year")
    theirs = review(owner, EmployeeFactory(actor=owner), manager=tara)
    training.training_add(
        actor=owner, employee=employee, course="First aid", completed_on=own.created_at.date()
    )
    version = policies.policy_publish(actor=owner, title="Tara's handbook test", text="Rules")
    policies.policy_acknowledge(actor=tara, version=version)
    filed = grievances.grievance_file(actor=tara, category="health", description="Back pain ignored")
    handled = grievances.grievance_file(actor=owner, category="pay", description="Someone else's case")
    grievances.grievance_update(
        actor=tara, grievance=handled, fields={"status": "investigating", "handler_email": EMAIL}
    )
    grievances.grievances_read(actor=tara, grievances=[handled])
    pipeline = hiring_pipeline(owner)
    cv = FileFactory(actor=owner, name="cv-tara.txt", text="Tara Quill, engineer")
    applied = candidate(owner, pipeline, name="Tara Quill", email=EMAIL, cv_file_id=cv.pk)
    other = candidate(owner, pipeline)
    hiring.candidate_move(actor=tara, candidate=other, stage=pipeline.stages.get(name="Interview"))
    hiring.candidates_ranked(actor=tara, query="engineer")

    out = io.BytesIO()
    summary = personal_data_export(workspace=acme, email=EMAIL, out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]
    for label in (
        "hr.review",
        "hr.assessment",
        "hr.trainingrecord",
        "hr.policyacknowledgment",
        "hr.grievance",
        "hr.grievanceevent",
        "hr.grievanceread",
        "hr.candidate",
        "hr.stagechange",
        "hr.hiringadvice",
    ):
        assert summary.counts.get(label, 0) >= 1, label
    assert any(row["description"] == "Back pain ignored" for row in records["hr.grievance"])

    personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert not Review.objects.filter(pk=own.pk).exists()
    assert Review.objects.get(pk=theirs.pk).manager_id is None
    assert not Assessment.objects.filter(author_id=tara.pk).exists()
    assert not TrainingRecord.objects.filter(employee_id=employee.pk).exists()
    assert not PolicyAcknowledgment.objects.filter(user_id=tara.pk).exists()
    assert not Grievance.objects.filter(pk=filed.pk).exists()
    assert Grievance.objects.get(pk=handled.pk).handler_id is None
    assert not GrievanceEvent.objects.filter(by_id=tara.pk).exists()
    assert not GrievanceRead.objects.filter(reader_id=tara.pk).exists()
    assert not Candidate.objects.filter(pk=applied.pk).exists() and not File.objects.filter(pk=cv.pk).exists()
    assert Candidate.objects.filter(pk=other.pk).exists()
    assert StageChange.objects.filter(candidate=other, by__isnull=True).count() == 1
    assert not HiringAdvice.objects.filter(asked_by_id=tara.pk).exists()
