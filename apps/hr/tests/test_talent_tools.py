"""The HR tools of reviews, training, policies, grievances and hiring through the real
dispatcher: each refused to a role without its permission, a normal call of each, bad input that
names the problem and writes nothing, and the area's rules: assessments seen by role and locked,
training expiry, acknowledgments bound to a version, grievances for HR alone with every read
recorded, hiring stages of one pipeline, a person's basis for every decision, duplicates, ranking
logged as advice, and the retention rule."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    assert_refused_without_its_permission,
    call,
    ok,
    person_with,
    refused,
    samples,
    tools_of,
)
from apps.files.models import File
from apps.files.tests.factories import FileFactory
from apps.hr.models import (
    Assessment,
    Candidate,
    Grievance,
    GrievanceEvent,
    GrievanceRead,
    HiringAdvice,
    HiringPipeline,
    PolicyAcknowledgment,
    PolicyVersion,
    Review,
    ReviewCycle,
    StageChange,
    TrainingRecord,
)
from apps.hr.services import hiring, policies
from apps.hr.tests.factories import EmployeeFactory, candidate, hiring_pipeline, review

TALENT = {
    "createReview",
    "getReviewCycles",
    "submitAssessment",
    "addTrainingRecord",
    "getTrainingRecords",
    "getPolicies",
    "getPolicyAcknowledgments",
    "fileGrievance",
    "getGrievances",
    "updateGrievance",
    "createHiringPipeline",
    "getHiringPipelineOverview",
    "createHiringCandidate",
    "getHiringCandidate",
    "updateHiringCandidate",
    "listHiringCandidates",
    "searchHiringCandidates",
    "moveHiringCandidateStage",
    "openHiringCandidate",
}
SPECS = [spec for spec in tools_of("hr") if spec.name in TALENT]
MODELS = (ReviewCycle, Review, Assessment, TrainingRecord, PolicyVersion, PolicyAcknowledgment, Grievance)
MODELS += (GrievanceEvent, HiringPipeline, Candidate, StageChange)


def counts() -> dict[str, int]:
    return {model.__name__: model._default_manager.count() for model in MODELS}


def someone(*permissions: str) -> object:
    return person_with({"hr.view", *permissions}, email=f"p-{uuid.uuid4().hex[:10]}@example.org")


def test_the_19_tools_are_registered():
    assert {spec.name for spec in SPECS} == TALENT


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


def test_each_tool_answers_a_normal_call(people):
    owner = people["owner"]
    found = samples()
    for name in sorted(TALENT):
        answer = ok(owner, name, found[name](owner).arguments)
        assert answer, name


def test_members_may_neither_read_grievances_nor_hire_and_viewers_not_review(people):
    for name in ("getGrievances", "updateGrievance", "createHiringCandidate", "getTrainingRecords"):
        with pytest.raises(ToolNotFound):
            call(people["member"], name, {})
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "submitAssessment", {})


# --- bad input: a clear error naming the problem, nothing written ----------------------------------


@pytest.fixture
def world(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner)
    one, other = hiring_pipeline(owner), hiring_pipeline(owner)
    made = candidate(owner, one)
    return {
        "owner": owner,
        "employee": employee,
        "review": review(owner, EmployeeFactory(actor=owner), manager=people["admin"]),
        "policy": policies.policy_publish(actor=owner, title=f"P {uuid.uuid4().hex[:6]}", text="v1").policy,
        "grievance": ok(owner, "fileGrievance", {"category": "pay", "description": "x"}),
        "pipeline": one,
        "candidate": made,
        "elsewhere": other.stages.get(name="Interview"),
    }


def _days(n: int) -> str:
    return (timezone.localdate() + timedelta(days=n)).isoformat()


BAD = [
    ("createReview", lambda w: {"employeeId": w["employee"].pk, "cycle": "X"}, "managerEmail"),
    ("getReviewCycles", lambda w: {"cycleId": 987654321}, "not found"),
    ("submitAssessment", lambda w: {"reviewId": w["review"].pk, "text": "Fine"}, "no assessment to give"),
    (
        "addTrainingRecord",
        lambda w: {"employeeId": w["employee"].pk, "course": "CPR", "completedOn": _days(3)},
        "in the future",
    ),
    ("getTrainingRecords", lambda w: {"status": "soon"}, "status"),
    ("getPolicies", lambda w: {"policyId": 987654321}, "not found"),
    ("getPolicyAcknowledgments", lambda w: {"policyId": w["policy"].pk, "version": 9}, "has versions [1]"),
    ("fileGrievance", lambda w: {"category": "pay", "description": "   "}, "description"),
    ("getGrievances", lambda w: {"status": "pending"}, "status"),
    ("updateGrievance", lambda w: {"grievanceId": 987654321, "note": "x"}, "not found"),
    ("createHiringPipeline", lambda w: {"name": "J", "stages": ["A", "a"]}, "each stage once"),
    ("getHiringPipelineOverview", lambda w: {"pipelineId": 987654321}, "not found"),
    (
        "createHiringCandidate",
        lambda w: {"pipelineId": w["pipeline"].pk, "name": "Al", "email": "not-mail"},
        "not a valid e-mail",
    ),
    ("getHiringCandidate", lambda w: {"candidateId": 987654321}, "not found"),
    ("updateHiringCandidate", lambda w: {"candidateId": w["candidate"].pk, "changes": {}}, "Say what"),
    ("listHiringCandidates", lambda w: {"stageId": 987654321}, "no stage 987654321"),
    ("searchHiringCandidates", lambda w: {"query": ""}, "query"),
    (
        "moveHiringCandidateStage",
        lambda w: {"candidateId": w["candidate"].pk, "stageId": w["elsewhere"].pk},
        "pick one of that pipeline's stages",
    ),
    ("openHiringCandidate", lambda w: {"candidateId": 987654321}, "not found"),
]


def test_bad_input_of_every_tool_is_a_clear_error_that_writes_nothing(world):
    assert {name for name, _args, _problem in BAD} == TALENT
    before = counts()
    for name, arguments, problem in BAD:
        message = refused(world["owner"], name, arguments(world))
        assert problem.lower() in message.lower(), (name, message)
    assert counts() == before


# --- reviews -------------------------------------------------------------------------------------


def test_assessments_are_seen_by_role_and_locked_once_submitted(people):
    owner = people["owner"]
    worker, manager, peer = someone("hr.reviews"), someone("hr.reviews"), someone("hr.reviews")
    employee = EmployeeFactory(actor=owner, person_email=worker.email)
    made = ok(
        owner,
        "createReview",
        {
            "employeeId": employee.pk,
            "cycle": f"2026 H1 {uuid.uuid4().hex[:6]}",
            "managerEmail": manager.email,
            "peerEmails": [peer.email],
        },
    )
    review_id, cycle_id = made["id"], Review.objects.get(pk=made["id"]).cycle_id
    assert {a["kind"] for a in made["assessments"]} == set()  # nothing submitted, none of the owner's

    def seen(person: object) -> set[str]:
        page = ok(person, "getReviewCycles", {"cycleId": cycle_id})
        return {a["kind"] for r in page["items"][0]["reviews"] for a in r["assessments"]}

    assert seen(worker) == {"self"}  # their own draft
    ok(
        worker,
        "submitAssessment",
        {"reviewId": review_id, "text": "Shipped the billing rewrite", "rating": 4},
    )
    assert seen(manager) == {"self", "manager"}  # the self assessment, and their own open one
    ok(manager, "submitAssessment", {"reviewId": review_id, "text": "Strong year", "rating": 5})
    ok(peer, "submitAssessment", {"reviewId": review_id, "text": "Always helps in reviews"})
    assert seen(worker) == {"self", "manager"}  # never the peers'
    assert seen(peer) == {"peer"}
    assert seen(manager) == {"self", "manager", "peer"}
    assert seen(owner) == {"self", "manager", "peer"}  # runs the cycles
    assert "locked" in refused(worker, "submitAssessment", {"reviewId": review_id, "text": "Changed my mind"})
    assert Assessment.objects.get(review_id=review_id, author=worker).text == "Shipped the billing rewrite"
    outsider = someone("hr.reviews")
    assert ok(outsider, "getReviewCycles", {"cycleId": cycle_id})["items"][0]["reviews"] == []


# --- training and policies -----------------------------------------------------------------------


def test_training_expiry_is_its_status(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner)
    base = {"employeeId": employee.pk}
    old = ok(
        owner,
        "addTrainingRecord",
        {**base, "course": "Fire warden", "completedOn": _days(-400), "validMonths": 12},
    )
    soon = ok(
        owner,
        "addTrainingRecord",
        {**base, "course": "Forklift", "completedOn": _days(-10), "expiresOn": _days(10)},
    )
    ok(owner, "addTrainingRecord", {**base, "course": "Induction", "completedOn": _days(-1)})
    assert (old["status"], soon["status"]) == ("expired", "expiring")
    assert "not both" in refused(
        owner,
        "addTrainingRecord",
        {**base, "course": "X", "completedOn": _days(-1), "expiresOn": _days(9), "validMonths": 2},
    )
    expired = ok(owner, "getTrainingRecords", {**base, "status": "expired"})["items"]
    assert [row["course"] for row in expired] == ["Fire warden"]
    assert ok(owner, "getTrainingRecords", {**base})["total"] == 3


def test_an_acknowledgment_is_of_one_version(people):
    owner = people["owner"]
    reader = someone()
    EmployeeFactory(actor=owner, person_email=reader.email)
    first = policies.policy_publish(actor=owner, title=f"Handbook {uuid.uuid4().hex[:6]}", text="Be kind.")
    policies.policy_acknowledge(actor=reader, version=first)
    mine = ok(reader, "getPolicies", {"policyId": first.policy_id})["items"][0]
    assert (mine["version"], mine["acknowledgedByYou"]) == (1, True)

    second = policies.policy_publish(actor=owner, title=first.policy.title, text="Be kind. Be on time.")
    mine = ok(reader, "getPolicies", {"policyId": first.policy_id, "withText": True})["items"][0]
    assert (mine["version"], mine["acknowledgedByYou"], mine["text"]) == (2, False, "Be kind. Be on time.")
    now = ok(owner, "getPolicyAcknowledgments", {"policyId": first.policy_id})
    assert reader.email in [p["email"] for p in now["missing"]] and now["acknowledged"] == []
    then = ok(owner, "getPolicyAcknowledgments", {"policyId": first.policy_id, "version": 1})
    assert [a["person"]["email"] for a in then["acknowledged"]] == [reader.email]
    with pytest.raises(Exception, match="superseded"):
        policies.policy_acknowledge(actor=reader, version=first)
    assert PolicyVersion.objects.get(pk=second.pk).acknowledgments.count() == 0


# --- grievances ----------------------------------------------------------------------------------


def test_grievances_are_hr_only_and_every_read_is_recorded(people):
    member, admin = people["member"], people["admin"]
    filed = ok(
        member,
        "fileGrievance",
        {"category": "bullying", "description": "Shouted at daily", "about": "Team lead"},
    )
    grievance = Grievance.objects.get(reference=filed["reference"])
    with pytest.raises(ToolNotFound):
        call(member, "getGrievances", {"grievanceId": grievance.pk})

    read = ok(admin, "getGrievances", {"grievanceId": grievance.pk})["items"][0]
    assert read["description"] == "Shouted at daily" and read["filedBy"]["email"] == member.email
    reads = GrievanceRead.objects.filter(grievance=grievance)
    assert [(r.reader_id, r.door) for r in reads] == [(admin.pk, reads[0].door)] and reads[0].door

    assert "outcome" in refused(admin, "updateGrievance", {"grievanceId": grievance.pk, "status": "resolved"})
    done = ok(
        admin,
        "updateGrievance",
        {"grievanceId": grievance.pk, "status": "closed", "outcome": "Mediation agreed", "note": "Both met"},
    )
    assert done["status"] == "closed" and [e["change"] for e in done["history"]][-1].startswith("outcome")
    assert "closed" in refused(admin, "updateGrievance", {"grievanceId": grievance.pk, "status": "open"})
    assert GrievanceRead.objects.filter(grievance=grievance).count() == 2  # the update's answer too


# --- hiring --------------------------------------------------------------------------------------


def test_a_move_stays_in_the_pipeline_and_a_decision_needs_a_persons_basis(people):
    owner = people["owner"]
    pipeline, other = hiring_pipeline(owner), hiring_pipeline(owner)
    made = candidate(owner, pipeline)
    stage = {s.name: s.pk for s in pipeline.stages.all()}
    before = StageChange.objects.filter(candidate=made).count()

    message = refused(
        owner, "moveHiringCandidateStage", {"candidateId": made.pk, "stageId": other.stages.first().pk}
    )
    assert f"is in pipeline {other.name!r}" in message and f"on pipeline {pipeline.name!r}" in message
    assert "basis" in refused(
        owner, "moveHiringCandidateStage", {"candidateId": made.pk, "stageId": stage["Offer"]}
    )
    assert StageChange.objects.filter(candidate=made).count() == before

    ok(owner, "moveHiringCandidateStage", {"candidateId": made.pk, "stageId": stage["Interview"]})
    moved = ok(
        owner,
        "moveHiringCandidateStage",
        {"candidateId": made.pk, "stageId": stage["Offer"], "basis": "Best system design interview"},
    )
    assert moved["stage"]["name"] == "Offer" and moved["stage"]["decision"] is True
    assert [(h["fromStage"], h["toStage"]) for h in moved["history"]] == [
        (None, "Applied"),
        ("Applied", "Interview"),
        ("Interview", "Offer"),
    ]
    decision = StageChange.objects.filter(candidate=made).last()
    assert (decision.by_id, decision.basis) == (owner.pk, "Best system design interview")


def test_duplicates_are_refused_on_a_pipeline_and_flagged_across_pipelines(people):
    owner = people["owner"]
    pipeline, other = hiring_pipeline(owner), hiring_pipeline(owner)
    name, email = "Mirela Vostrikova", f"mirela.{uuid.uuid4().hex[:8]}@example.net"
    first = ok(owner, "createHiringCandidate", {"pipelineId": pipeline.pk, "name": name, "email": email})
    first_id = first["candidate"]["id"]
    assert "updateHiringCandidate" in refused(
        owner, "createHiringCandidate", {"pipelineId": pipeline.pk, "name": "M. V.", "email": email.upper()}
    )
    again = ok(owner, "createHiringCandidate", {"pipelineId": other.pk, "name": name, "email": email})
    assert {(d["id"], d["why"]) for d in again["possibleDuplicates"]} >= {(first_id, "same e-mail")}
    assert again["candidate"]["duplicateOf"] == first_id
    lookalike = ok(
        owner,
        "createHiringCandidate",
        {"pipelineId": other.pk, "name": "Miréla Vostrikova", "phone": "+44 20 7946 0991"},
    )
    assert first_id in {d["id"] for d in lookalike["possibleDuplicates"]}


def test_a_cv_is_read_from_files_searched_and_any_ranking_is_logged_as_advice(people):
    owner = people["owner"]
    pipeline = hiring_pipeline(owner)
    word = f"kubern{uuid.uuid4().hex[:6]}"
    cv = FileFactory(actor=owner, name="cv-ana.txt", text=f"Ana Ruiz\n{word} {word} operator, Go, Terraform")
    other = FileFactory(actor=owner, name="cv-bo.txt", text=f"Bo Lind\nsome {word} exposure")
    picture = FileFactory(actor=owner, name="cv.png", text="not text")
    ana = ok(
        owner,
        "createHiringCandidate",
        {"pipelineId": pipeline.pk, "name": "Ana Ruiz", "email": f"ana@{word}.example", "cvFileId": cv.pk},
    )
    ok(
        owner,
        "createHiringCandidate",
        {"pipelineId": pipeline.pk, "name": "Bo Lind", "email": f"bo@{word}.example", "cvFileId": other.pk},
    )
    assert "no text to read" in refused(
        owner,
        "createHiringCandidate",
        {"pipelineId": pipeline.pk, "name": "Cy", "email": f"cy@{word}.example", "cvFileId": picture.pk},
    )
    assert ok(owner, "getHiringCandidate", {"candidateId": ana["candidate"]["id"], "withCv": True})[
        "cvText"
    ].startswith("Ana Ruiz")

    found = ok(owner, "searchHiringCandidates", {"query": word})
    assert [c["name"] for c in found["items"]] == ["Ana Ruiz", "Bo Lind"] and "advice" in found["advice"]
    advice = HiringAdvice.objects.filter(asked_by=owner, query=word).get()
    assert [r["candidate"] for r in advice.ranking] == [c["id"] for c in found["items"]]


def test_candidates_without_consent_are_anonymised_after_the_retention_period(people, settings):
    owner = people["owner"]
    settings.ATRIUM_HR_CANDIDATE_RETENTION_DAYS = 180
    pipeline = hiring_pipeline(owner)
    cv = FileFactory(actor=owner, name="cv-old.txt", text="Old applicant")
    old = candidate(owner, pipeline, name="Olga Old", cv_file_id=cv.pk)
    kept = candidate(owner, pipeline, name="Karl Kept", consent=True)
    recent = candidate(owner, pipeline, name="Rita Recent")
    Candidate.objects.filter(pk__in=[old.pk, kept.pk]).update(
        last_activity_at=timezone.now() - timedelta(days=181)
    )

    assert hiring.anonymise_expired() >= 1
    old.refresh_from_db()
    assert (old.name, old.email, old.cv_text, old.cv_file_id) == (
        f"Anonymised candidate {old.pk}",
        "",
        "",
        None,
    )
    assert not File.objects.filter(pk=cv.pk).exists()
    assert Candidate.objects.get(pk=kept.pk).name == "Karl Kept"
    assert Candidate.objects.get(pk=recent.pk).anonymised_at is None
    assert "anonymised" in refused(
        owner, "updateHiringCandidate", {"candidateId": old.pk, "changes": {"notes": "x"}}
    )
