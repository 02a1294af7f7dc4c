"""All 19 Deals Pipeline tools answer over MCP (the Streamable HTTP door, served in-process with
a real personal access token and API key), each with its effect in the database and on the Deals
page; deleteDeal, DESTRUCTIVE, runs only once the call is confirmed with its token."""

import re

from apps.catalogue.testing import samples, tools_of
from apps.deals.models import Deal, DealEvent, Pipeline
from apps.mcp.testing import Door, pat_and_key


def test_every_deals_tool_answers_over_mcp_with_a_real_effect(people, acme_client):
    owner = people["owner"]
    door = Door(pat_and_key("owner@acme.example"))
    door.initialize()
    found = samples()
    # The pipeline and deal tools (test_outreach.py calls the outreach and e-mail ones).
    core = {"pipelines", "deals", "activity", "overview"}
    names = sorted(spec.name for spec in tools_of("deals") if spec.module.rsplit(".", 1)[-1] in core)
    answers = {}

    for name in names:
        arguments = found[name](owner).arguments
        result = door.call(name, arguments)["result"]
        if name == "deleteDeal":
            assert result["isError"] is True and "Confirmation required" in result["content"][0]["text"]
            token = re.search(r'"confirmationToken": "([^"]+)"', result["content"][0]["text"]).group(1)
            result = door.call(name, {**arguments, "confirmationToken": token})["result"]
        assert result["isError"] is False, (name, result["content"])
        answers[name] = result["structuredContent"]

    assert len(answers) == 19
    assert Pipeline.objects.get(pk=answers["createPipeline"]["id"]).stages.count() == 3
    created = Deal.objects.get(pk=answers["createDeal"]["id"])
    assert (created.title, str(created.value), created.contact.last_name) == (
        "Harbourline: 40 seats",
        "48000.00",
        "Marchbank",
    )
    assert Deal.objects.get(pk=answers["deleteDeal"]["id"]).in_trash
    assert Deal.objects.get(pk=answers["restoreDeal"]["id"]).in_trash is False
    moved = Deal.objects.get(pk=answers["moveDealStage"]["deal"]["id"])
    assert moved.stage.name == "Negotiation" and moved.visits.count() == 2
    event = DealEvent.objects.filter(deal=moved, kind="moved").get()
    assert (event.door, event.tool) == ("mcp", "moveDealStage")
    assert re.search(r"^https?://[^/]+/settings/deals/\d+/$", answers["openDeal"]["url"])
    assert answers["briefDealPipeline"]["source"] == "computed"
    acme_client.force_login(owner)
    page = acme_client.get(f"/settings/deals/{created.pk}/").content.decode()
    assert "Harbourline: 40 seats" in page and "mcp · createDeal" in page
