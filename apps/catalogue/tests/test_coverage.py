"""The registry against SPEC.md 4.7: every tool the specification names in an area that is built
is registered, in that area, under that name; an area holds no more tools than SPEC.md gives it.

spec_catalogue.json is SPEC.md 4.7's tool names by area (parsed from the specification, with the
number of tools it states for each area, which for some areas is more than it names).
"""

import json
from pathlib import Path

import pytest

from apps.catalogue import registry
from apps.core import areas

SPEC = json.loads((Path(__file__).resolve().parents[1] / "spec_catalogue.json").read_text())
# The areas built so far, as SPEC.md 4.7 titles them: every declared area (apps.core.areas).
BUILT = sorted(area.catalogue_title or str(area.title) for area in areas.all_areas())
# The catalogue's own tools (search and describe), part of SPEC.md's unnamed Platform tools.
OWN_AREAS = {"catalogue"}
# SPEC.md 4.7's "Platform" gathers tools that act on other areas' records (deleteContact,
# getDealHistory): each stands in the area whose records it acts on, under that area's permissions.
ACROSS_AREAS = "platform"
# Areas being built in steps (docs/<area>.md says which tools exist yet): what they register is
# SPEC.md's, in their area, but not yet all of it.
IN_PROGRESS: set[str] = set()
# SPEC.md's Platform is also an area of its own (apps/platform) for its tools that act on no other
# area's records (reference data): built in steps, each of its tools one that SPEC.md's Platform
# names or one the catalogue's design adds (in BEYOND_SPEC["platform"]).
PLATFORM = "Platform"
# SPEC.md's Platform tools it does not name but a named one refers to, built in the area whose
# records they act on: getDealHistory's description names restoreDeal.
UNNAMED_PLATFORM = {"restoreDeal"}
# Platform tools the catalogue's design names beyond SPEC.md (the proposed catalogue's Platform),
# built in the area whose records they act on.
DESIGNED_PLATFORM = {"deleteEvent", "restoreGroupAccount", "deleteHiringCandidate"}
# Tools beyond SPEC.md's catalogue, each counted in docs/catalogue.md: what an area's everyday work
# needs that its named tools cannot carry.
BEYOND_SPEC = {
    "accounting": {
        "allocateCreditNote",
        "refundCreditNote",
        "removePayment",
        "recordBillPayment",
        "createSupplierCreditNote",
        "voidBill",
        "recordExchangeRate",
        "discardPurchaseInvoiceProposal",
        "setLockDate",
        "postJournal",
        "reverseJournal",
        "listJournals",
        "listAccounts",
        "manageAccount",
        "manageTaxType",
        "getProfitAndLoss",
        "getBalanceSheet",
        "getAgedBalances",
        "getAccountTransactions",
        "getVatReturn",
        "createBill",
        "setSeparationOfDuties",
        "revalueForeignCurrency",
        "approveJournal",
        "discardJournal",
        "manageBankAccount",
        "recordBankTransaction",
        "transferBankFunds",
        "voidBankTransaction",
        "listBankTransactions",
        "manageBankRule",
        "listBankRules",
        "getBankReconciliation",
    },
    "customerservice": {
        "mergeTickets",
        "updateTicket",
        "listCannedReplies",
        "manageCannedReply",
        "applyCannedReply",
    },
    "emailinbox": {"manageEmail", "sendEmail", "manageInboxFolder"},
    "events": {"cancelEvent", "updateEventSession", "removeEventSession"},
    "hr": {"listLeaveTypes", "adjustLeaveBalance", "manageLeavePolicy", "manageCompanyHolidays"},
    # The Platform tools of the catalogue's design (AREAS.md 3.2) in the Platform area itself.
    "platform": {
        "validateTaxId",
        "validateBankDetails",
        "getPublicHolidays",
        "getMyProfile",
        "getWorkspaceSummary",
        "listWorkspaceUsers",
        "listRoles",
        "listApiKeys",
        "revokeApiKey",
        "validateDataImport",
        "commitDataImport",
        "requestDataExport",
        "getDataExportStatus",
        "inviteWorkspaceUser",
        "updateUserRole",
        "deactivateWorkspaceUser",
        "manageRole",
        "listInstalledApps",
        "manageInstalledApps",
        "extractDocumentText",
        "transcribeAudio",
        "listPortalUsers",
        "invitePortalUser",
        "revokePortalUser",
        "searchHelpArticles",
        "searchActivityLog",
        "listRecentlyDeleted",
        "listStoredApis",
        "saveStoredApi",
        "listConnectedIntegrations",
        "connectIntegration",
        "disconnectIntegration",
        "sendOtpCode",
        "listCustomFields",
        "manageCustomFields",
        "setCustomFieldValues",
        "examinePersonalData",
        "erasePersonalData",
    },
}
NOT_COUNTED = UNNAMED_PLATFORM | DESIGNED_PLATFORM | set().union(*BEYOND_SPEC.values())
# A declared area's key by the title SPEC.md gives it ("Deals Pipeline" is the area "deals").
KEYS = {str(area.catalogue_title or area.title): area.key for area in areas.all_areas()}


def area_key(title: str) -> str:
    return KEYS.get(title) or title.lower().replace(" ", "")


def specified(title: str) -> dict:
    return next(area for area in SPEC["areas"] if area["area"] == title)


@pytest.mark.parametrize("title", BUILT)
def test_every_tool_spec_names_in_a_built_area_is_registered_there(title):
    area = specified(title)
    if title == PLATFORM:
        own = {spec.name for spec in registry.all_tools() if spec.area == area_key(title)}
        assert own and own <= set(area["named_tools"]) | NOT_COUNTED
        return
    registered = {
        spec.name
        for spec in registry.all_tools()
        if spec.area == area_key(title)
        and spec.name not in specified("Platform")["named_tools"]
        and spec.name not in NOT_COUNTED
    }

    if title in IN_PROGRESS:
        assert registered and registered <= set(area["named_tools"])
        return
    assert sorted(set(area["named_tools"]) - registered) == []
    assert len(registered) == area["stated_count"]


def test_no_tool_stands_in_an_area_spec_does_not_give_it():
    where = {name: area_key(area["area"]) for area in SPEC["areas"] for name in area["named_tools"]}
    areas = {area_key(area["area"]) for area in SPEC["areas"]} | OWN_AREAS
    tools = [spec for spec in registry.all_tools() if not spec.fixture]

    assert [spec.name for spec in tools if spec.area not in areas] == []
    assert [
        spec.name
        for spec in tools
        if spec.name in where and where[spec.name] not in (spec.area, ACROSS_AREAS)
    ] == []


def test_the_built_areas_hold_the_tools_spec_gives_them():
    complete = [title for title in BUILT if title not in IN_PROGRESS | {PLATFORM}]
    counted = sum(specified(title)["stated_count"] for title in complete)

    assert counted >= 25 + 102
    platform = set(specified("Platform")["named_tools"]) | NOT_COUNTED
    built = {area_key(t) for t in complete}
    assert (
        sum(1 for spec in registry.all_tools() if spec.area in built and spec.name not in platform) == counted
    )


def test_the_tools_beyond_spec_stand_in_their_areas_and_spec_names_none_of_them():
    named = {name for area in SPEC["areas"] for name in area["named_tools"]}
    beyond = [(area, name) for area, names in BEYOND_SPEC.items() for name in sorted(names)]

    assert [(area, registry.get(name).area) for area, name in beyond] == [(area, area) for area, _n in beyond]
    assert named & (NOT_COUNTED - UNNAMED_PLATFORM) == set()
