"""The demo workspaces' deal finder and reachout campaign (`manage.py seed_demo`, through
apps.deals.demo): a daily prospecting search over the contacts and group accounts, and a draft
three-step campaign from the owner's mailbox (a draft sends nothing until someone starts it).
Made once: a second run finds the finder and changes nothing."""

from typing import Any

from django.db import transaction

from apps.deals import finding, reachout
from apps.deals.models import DealFinder
from apps.mail import api as mail

FINDER = "Software buyers"


@transaction.atomic
def seed(*, people: list[Any], domain: str) -> None:
    owner = next(person for person in people if person.role.key == "owner")
    if DealFinder.objects.filter(name=FINDER).exists():
        return
    finding.finder_create(
        actor=owner,
        name=FINDER,
        criteria={"keywords": ["software", "saas"], "titles": ["head", "director", "cto"]},
        sources=["contacts", "accounts"],
    )
    # The mail area's demo (seeded after this one) finds this mailbox and fills it.
    mailbox = mail.demo_mailbox(owner)
    reachout.campaign_create(
        actor=owner,
        name="Autumn software outreach",
        mailbox=mailbox,
        steps=[
            reachout.Step(
                "A question for {company}", "Hello {first_name},\n\nMay I show you how Atrium works?"
            ),
            reachout.Step("Following up", "Hello {first_name}, did my last note reach you?", 3),
            reachout.Step("Closing the loop", "I will not write again; reply any time.", 5),
        ],
        emails=["ines.moreau@example.org", "tom.becker@example.org"],
    )
