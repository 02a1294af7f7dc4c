"""The 19 HR tools of reviews, training, policies, grievances and hiring answer over MCP (the
Streamable HTTP door, served in-process with a real personal access token and API key), each with
its effect in the database, and the candidate on the Hiring pages."""

from apps.catalogue.testing import samples
from apps.hr.models import Candidate, Grievance, GrievanceRead, HiringPipeline
from apps.hr.tests.test_talent_tools import TALENT
from apps.mcp.testing import Door, pat_and_key


def test_every_talent_tool_answers_over_mcp_with_a_real_effect(people, acme_client):
    owner = people["owner"]
    door = Door(pat_and_key("owner@acme.example"))
    door.initialize()
    found = samples()
    answers = {}
    for name in sorted(TALENT):
        result = door.call(name, found[name](owner).arguments)["result"]
        assert result["isError"] is False, (name, result["content"])
        answers[name] = result["structuredContent"]

    assert len(answers) == 19
    made = Candidate.objects.get(pk=answers["createHiringCandidate"]["candidate"]["id"])
    assert (made.name, made.source, made.consent, made.cv_name) == (
        "Ines Okafor",
        "referral",
        True,
        "cv-ines.txt",
    )
    assert "PostgreSQL" in made.cv_text
    assert (
        HiringPipeline.objects.get(pk=answers["createHiringPipeline"]["id"])
        .stages.filter(decision=True)
        .count()
        == 2
    )
    assert answers["moveHiringCandidateStage"]["stage"]["name"] == "Interview"
    assert answers["submitAssessment"]["submittedAt"] is not None
    assert answers["addTrainingRecord"]["status"] == "valid"
    grievance = Grievance.objects.get(reference=answers["fileGrievance"]["reference"])
    assert grievance.filed_by_id == owner.pk
    read = answers["getGrievances"]["items"][0]["id"]
    assert GrievanceRead.objects.filter(grievance_id=read, reader=owner).exists()
    assert "/settings/hr/hiring/candidates/" in answers["openHiringCandidate"]["url"]

    acme_client.force_login(owner)
    page = acme_client.get("/settings/hr/hiring/").content.decode()
    assert "Ines Okafor" in page
    detail = acme_client.get(f"/settings/hr/hiring/candidates/{made.pk}/").content.decode()
    assert "cv-ines.txt" in detail and "Applied" in detail
