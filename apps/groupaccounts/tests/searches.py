"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("create an account for Globex Group, a new customer group", "createGroupAccount"),
    ("add Sunrise Hotels as a partner organisation we deal with", "createGroupAccount"),
    ("set up Northgate Supplies as a supplier company account", "createGroupAccount"),
    (
        "brief me on everything about the Umbrella Corp account before the quarterly review",
        "examineGroupAccount",
    ),
    (
        "meeting the Vantage group tomorrow: their people, relationship health, recent mails, upcoming calls",
        "examineGroupAccount",
    ),
    ("show the Oceanic account's details and the people linked to it", "getGroupAccount"),
    ("what industry and website do we have on file for the Halcyon group", "getGroupAccount"),
    ("which documents and files are linked to the Apex account", "getGroupAccountAttachments"),
    ("pull up the contracts and price lists attached to the Meridian group", "getGroupAccountAttachments"),
    ("any meetings coming up with anyone from Northwind Group?", "getGroupAccountUpcomingEvents"),
    (
        "what's in the diary with the Stellar account's people over the next weeks",
        "getGroupAccountUpcomingEvents",
    ),
    ("how much have we spent on the agent this month", "getMyBillingOverview"),
    ("how much storage do our files take and how many tool calls have agents made", "getMyBillingOverview"),
    ("what do my API keys cost us today", "getMyBillingOverview"),
    (
        "Maya Lopez works at Orbital Group, link her to that account as procurement lead",
        "linkContactToGroupAccount",
    ),
    ("add Theo Grant to the people at the Redwood account", "linkContactToGroupAccount"),
    ("link the master services agreement doc to the Blue Harbor account", "linkDocumentToGroupAccount"),
    ("attach our account plan write-up to the Crestview group", "linkDocumentToGroupAccount"),
    ("link the signed order pdf to the Atlas group account", ("linkFileToGroupAccount", "attachEntityFile")),
    (
        "add the Summit logo image to the Summit customer group",
        ("linkFileToGroupAccount", "attachEntityFile"),
    ),
    ("what customer groups and suppliers do we have on file", "listGroupAccounts"),
    ("list every partner organisation alphabetically", "listGroupAccounts"),
    ("find the emails with the Lumen group about the renewal", "searchGroupAccountEmails"),
    ("what did we last email to people at Kestrel Holdings", "searchGroupAccountEmails"),
    ("which account has the email domain acme.io", "searchGroupAccounts"),
    ("find the logistics company we work with, the one tagged preferred", "searchGroupAccounts"),
    ("which customer group has Dana Whitfield among its people", "searchGroupAccounts"),
    ("Pavel left Orion Group, take him off that account", "unlinkContactFromGroupAccount"),
    (
        "Ruth no longer works for Beacon Partners, remove her from their account",
        "unlinkContactFromGroupAccount",
    ),
    ("change the website of the Polar account to polar.example", "updateGroupAccount"),
    ("tag the Zenith group as strategic and change its industry to fintech", "updateGroupAccount"),
    ("delete the Polar group account, we no longer work with them", "deleteGroupAccount"),
    ("archive the company account of Zenith", "deleteGroupAccount"),
]

# Written later, as people say it: colloquial verbs, British and American words, a few typos.
REQUESTS += [
    ("set up an account for the Smith family", "createGroupAccount"),
    ("add Jane to the Smith household", "linkContactToGroupAccount"),
    ("whats our usage and spend this month", "getMyBillingOverview"),
    ("show me the Acme group with its people", "getGroupAccount"),
    ("any meetings coming up with the Johnson household", "getGroupAccountUpcomingEvents"),
    ("create a group account for Acme Holdings", "createGroupAccount"),
    ("who is in the Patel family account", "getGroupAccount"),
    ("take Ben out of the Acme group account", "unlinkContactFromGroupAccount"),
    ("find the group account for the Jones household", "searchGroupAccounts"),
    ("what have we emailed the Acme group lately", "searchGroupAccountEmails"),
    ("link the contract file to the Acme group account", "linkFileToGroupAccount"),
    ("archive the old group account", "deleteGroupAccount"),
]
