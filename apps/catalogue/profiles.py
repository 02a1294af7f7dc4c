"""Tool profiles: short lists of tools made for the jobs people do, for clients that cap how many
tools they take (Cursor and Trae about 40, OpenAI and VS Code 128 in all).

A client chooses one by URL on the same endpoint (`/api/mcp?profile=sales`) or by the
`X-MCP-Profile` header; the server card lists them. A profile narrows what `tools/list` shows,
never what the person may do: the catalogue's own tools (searchTools, describeTool, callTool) are
in every profile, so every other tool the person may use stays reachable. The `toolsets` and
`readonly` narrowing apply on top of a profile.

The profiles are named here; each area says which of its tools go in which (the `profiles` of
its declaration, apps.core.areas), so a new area joins a profile without touching this module.
The start-up check (apps.catalogue.checks) holds every profile to MAX_TOOLS tools and MAX_TOKENS
tokens of what a model reads of them, and every tool to at least one profile: a job a client
serves by a profile never needs the long way round through searchTools for its own tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from apps.catalogue import registry
from apps.catalogue.checks import model_tokens
from apps.catalogue.registry import ToolSpec
from apps.core import areas

MAX_TOOLS = 40
# The catalogue's finding and running tools: in every profile, so that a client that takes one
# still reaches every other tool the person may use.
EVERY_PROFILE = ("searchTools", "describeTool", "callTool")
# What a model reads of the profile's tools (apps.catalogue.checks.model_tokens), summed.
MAX_TOKENS = 10_000


@dataclass(frozen=True)
class Profile:
    key: str
    title: str
    description: str
    # What a person who does this job says of it ("I do the books"): how the consent page and the
    # agent connection page offer the profile, before its title.
    job: str | Promise
    # Tools of the catalogue's own area, besides searchTools, describeTool and callTool (which
    # every profile lists), that this job uses: the background tools of apps.mcp for automation,
    # searchWorkspace where the job reaches across areas.
    catalogue: tuple[str, ...] = ()

    @property
    def choice(self) -> str:
        """The profile as a person chooses it: by what they do, then what it is."""
        return f"{self.job} ({self.title}: {self.description})"


# "automation" has no area of its own yet: it holds what serves that work today (Tasks' scheduled
# and running tasks, watchers and notifications) and grows with the areas to come. "marketing" is
# the Marketing area's, with Deals' reach-out campaigns and deal finders beside it.
PROFILES = (
    Profile(
        "essentials",
        "Essentials",
        "Everyday work: people, the diary, to-dos, documents, files and notifications.",
        _("I need a bit of everything"),
        catalogue=("searchWorkspace",),
    ),
    Profile(
        "sales",
        "Sales",
        "Deals and their pipeline, customers and their companies, meetings and follow-ups.",
        _("I sell"),
    ),
    Profile(
        "operations",
        "Operations",
        "Tasks and their boards, schedules, documents and files.",
        _("I run projects and processes"),
    ),
    Profile(
        "people",
        "People",
        "Teams and who is in them, colleagues' diaries, notices and handovers.",
        _("I manage a team"),
    ),
    Profile(
        "finance",
        "Finance",
        "Supplier bills, bank lines and reconciliation, money spent, received and transferred, tax.",
        _("I do the books"),
    ),
    Profile(
        "billing",
        "Billing",
        "Invoices, quotes, billable charges, payments, reminders and statements to customers.",
        _("I bill customers and get paid"),
    ),
    Profile(
        "closing",
        "Closing",
        "Month and year end: reports, VAT return, journals, lock date, chart, bank accounts, sync.",
        _("I close the books and file returns"),
    ),
    Profile(
        "support",
        "Support",
        "The ticket queue, replies and escalations, customers and their e-mails.",
        _("I answer customers"),
    ),
    Profile(
        "hr",
        "HR",
        "Employees, leave, time, hiring, onboarding, reviews, training, policies and grievances.",
        _("I look after our people"),
    ),
    Profile(
        "events",
        "Events",
        "Events and their attendees, agenda, suppliers, hotels, travel and budget.",
        _("I organise events"),
    ),
    Profile(
        "marketing",
        "Marketing",
        "E-mail campaigns to segments of contacts, reach-out campaigns, deal finders and their leads.",
        _("I find and reach new customers"),
    ),
    Profile(
        "content",
        "Marketing content",
        "Marketing copy written or generated and published, social posts, landing pages, designs, brand kit.",
        _("I make marketing content and post it"),
    ),
    Profile(
        "growth",
        "Marketing automation",
        "E-mail sequences, marketing plans and strategy, marketing analytics and recommendations.",
        _("I plan and automate our marketing"),
    ),
    Profile(
        "automation",
        "Automation",
        "Tasks that run themselves: schedules, runs, steps, watchers, notifications, background tools.",
        _("I automate work"),
        catalogue=("startToolTask", "getToolTaskStatus"),
    ),
    Profile(
        "admin",
        "Admin",
        "The company and the workspace: register, domains, departments, invitations, settings pages.",
        _("I run the workspace"),
        catalogue=("searchWorkspace",),
    ),
    Profile(
        "account",
        "Account",
        "The service itself: usage and billing, rates, help pages, tickets to its operators, the mobile app.",
        _("I look after our Atrium account"),
    ),
    Profile(
        "access",
        "Access",
        "Who may do what: people, invitations, roles and custom roles, installed areas, API keys.",
        _("I manage who has access"),
    ),
    Profile(
        "housekeeping",
        "Housekeeping",
        "Keeping records in order: trash and restore, merges, links, sharing, folders, file copies.",
        _("I keep our records tidy"),
    ),
    Profile(
        "reference",
        "Reference",
        "You, the workspace, its people, roles and API keys; countries, banks, tax ids, holidays.",
        _("I check details and look up facts"),
    ),
    Profile(
        "data",
        "Data",
        "Imports and exports of records: files checked and imported once, spreadsheets, personal data.",
        _("I move data in and out"),
    ),
    Profile(
        "media",
        "Media",
        "Files' and documents' contents: text and OCR of scans, speech to text, questions about images.",
        _("I work with files' contents"),
    ),
    Profile(
        "portal",
        "Client portal",
        "Clients as portal users: invite, approve, revoke; share documents and files with them.",
        _("I share work with clients"),
    ),
    Profile(
        "integrations",
        "Integrations",
        "Other services: stored HTTP APIs called with kept credentials, accounts connected by OAuth.",
        _("I connect other services"),
    ),
    Profile(
        "online",
        "Online",
        "The world outside the workspace: web searches, pages and PDFs read, video meetings with links.",
        _("I research and meet people online"),
    ),
    Profile(
        "phone",
        "Phone",
        "Phone calls and text messages placed by agents, the do-not-call list, call logs and cost.",
        _("I call and text people"),
    ),
    Profile(
        "blog",
        "Blog",
        "The public blog: posts written, polished, translated, scheduled and published; images, comments.",
        _("I write and publish posts"),
    ),
    Profile(
        "forms",
        "Forms",
        "Forms and surveys: fields written or generated, versions published, submissions locked, PDFs.",
        _("I collect answers with forms"),
    ),
    Profile(
        "mcpgateway",
        "MCP Gateway",
        "Outside MCP servers the workspace connects to: their tools listed and called, their resources read.",
        _("I use tools of outside MCP servers"),
    ),
    Profile(
        "extensions",
        "Extensions",
        "Extensions for the workspace: briefs, details, logos, bundles uploaded in chunks, validated builds.",
        _("I build extensions for our workspace"),
    ),
    Profile(
        "vaults",
        "Credential Vaults",
        "The vault's credentials: listed and looked up by reference for tools, their secrets never shown.",
        _("I look up credentials for tools"),
    ),
    Profile(
        "teams",
        "Agent teams",
        "AI agent teams: members hired with kits of tools, prompts sent, their projects and log read.",
        _("I run teams of AI agents"),
    ),
    Profile(
        "listeners",
        "Listeners",
        "Automations: a record event, a schedule or a webhook runs a flow of tools as its owner; their runs.",
        _("I automate work with listeners"),
    ),
    Profile(
        "assistant",
        "Personal Assistant",
        "A person's goals briefed, researched, broken into tasks, planned into free time and scheduled.",
        _("I plan my goals into my calendar"),
    ),
    Profile(
        "travel",
        "Travel",
        (
            "Trips: flight and hotel offers found, bookmarked, re-priced and held or quoted, paid by a "
            "person; flights, properties, cars and activities compared and shortlisted."
        ),
        _("I plan and book trips"),
    ),
)


def get(key: str) -> Profile | None:
    return next((profile for profile in PROFILES if profile.key == key), None)


@lru_cache(maxsize=64)
def _names(key: str, version: int) -> frozenset[str]:
    named = {name for area in areas.all_areas() for name in area.profiles.get(key, ())}
    # The finding and running tools in every profile; the catalogue area's others (searchWorkspace,
    # the background tools of apps.mcp) where a profile names them.
    profile = get(key)
    named_here = profile.catalogue if profile is not None else ()
    own = {
        spec.name
        for spec in registry.all_tools()
        if spec.area == "catalogue"
        and not spec.fixture
        and (spec.name in EVERY_PROFILE or spec.name in named_here)
    }
    return frozenset(named | own)


def tool_names(key: str) -> frozenset[str]:
    """The names of the tools profile `key` lists (for the registry as it is now)."""
    return _names(key, registry.version())


def tools(key: str) -> list[ToolSpec]:
    names = tool_names(key)
    return [spec for spec in registry.all_tools() if spec.name in names]


def unlisted() -> list[ToolSpec]:
    """The tools no profile lists (fixtures of the test settings aside): a client that takes a
    profile would reach them only through searchTools and callTool, which no job should need."""
    listed = frozenset().union(*(tool_names(profile.key) for profile in PROFILES))
    return [spec for spec in registry.all_tools() if not spec.fixture and spec.name not in listed]


def problems() -> list[str]:
    """What is wrong with the profiles: an area naming an unknown profile or a tool not its own,
    a profile over its limits, a tool in no profile."""
    found = []
    for profile in PROFILES:
        for name in profile.catalogue:
            spec = registry.get(name)
            if spec is None or spec.area != "catalogue":
                found.append(f"profile {profile.key!r} names {name!r}, which is not a tool of the catalogue")
    for area in areas.all_areas():
        for key, names in area.profiles.items():
            if get(key) is None:
                found.append(f"area {area.key!r} puts tools in {key!r}, which is not a profile")
            for name in names:
                spec = registry.get(name)
                if spec is None or spec.area != area.key:
                    found.append(
                        f"area {area.key!r} puts {name!r} in {key!r}, but it is not one of its tools"
                    )
    for profile in PROFILES:
        listed = tools(profile.key)
        if len(listed) > MAX_TOOLS:
            found.append(f"profile {profile.key!r} lists {len(listed)} tools, more than {MAX_TOOLS}")
        tokens = round(sum(model_tokens(spec) for spec in listed))
        if tokens > MAX_TOKENS:
            found.append(f"profile {profile.key!r} costs a model {tokens} tokens, more than {MAX_TOKENS}")
    for spec in unlisted():
        found.append(f"{spec.name} ({spec.area}) is in no profile: its area names it in one (`profiles=`)")
    return found
