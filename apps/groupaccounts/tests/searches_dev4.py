"""Requests for searchTools written blind (fifth round), from the docs and the tools' descriptions."""

DEV = [
    ("set up Pinewood Hotels Group as an account, with all their hotels under it", "createGroupAccount"),
    ("create a group account for the NHS trust we work with", "createGroupAccount"),
    ("change the Pinewood group's industry to hospitality and update the website", "updateGroupAccount"),
    ("archive the Brookfield group account, we don't work with them any more", "deleteGroupAccount"),
    ("bring the Brookfield account back", "restoreGroupAccount"),
    ("show me the Northwind account and the people linked to it", "getGroupAccount"),
    ("list our key accounts", "listGroupAccounts"),
    ("which account does Jane Porter belong to?", "searchGroupAccounts"),
    ("find the account for that logistics firm in Bristol", "searchGroupAccounts"),
    ("add Tom Baxter to the Pinewood account as procurement lead", "linkContactToGroupAccount"),
    ("take Lucas off the Orion account, he left", "unlinkContactFromGroupAccount"),
    ("any meetings coming up with anyone at Northwind?", "getGroupAccountUpcomingEvents"),
    ("find all the emails with people at Pinewood about the renewal", "searchGroupAccountEmails"),
    ("link the master services agreement doc to the Orion account", "linkDocumentToGroupAccount"),
    ("attach the signed contract PDF to the Northwind account", "linkFileToGroupAccount"),
    ("what files and docs have we got for the Pinewood account?", "getGroupAccountAttachments"),
    ("give me a 360 view of the Orion account before my call", "examineGroupAccount"),
    ("how healthy is our relationship with the whole Northwind group?", "examineGroupAccount"),
    ("how much have we used this month - agent spend, storage?", "getMyBillingOverview"),
    ("how many tool calls has the workspace made", "getMyBillingOverview"),
]
