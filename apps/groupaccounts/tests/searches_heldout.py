"""Held-out search requests for Group accounts: written from the area's docs before its search hints,
never used to change hints, vocabulary or weights (docs/catalogue.md, "How searchTools ranks")."""

HELD_OUT = [
    (
        "create an account for the Vantage Group so we can track all their people together",
        "createGroupAccount",
    ),
    ("set up Meridian Health as a customer account", "createGroupAccount"),
    ("archive the Oldfield account, we stopped working with them", "deleteGroupAccount"),
    ("full picture of the Tesco account: their people, meetings, emails", "examineGroupAccount"),
    ("who are the contacts at the Halcyon account?", "getGroupAccount"),
    ("files and docs we've linked to the Kestrel account", "getGroupAccountAttachments"),
    ("any meetings coming up with people from Orion Partners?", "getGroupAccountUpcomingEvents"),
    ("how much have we used this month: tool calls, storage, AI spend?", "getMyBillingOverview"),
    ("add Maya Lin to the Northgate account as the billing contact", "linkContactToGroupAccount"),
    ("link the master services agreement doc to the Sterling account", "linkDocumentToGroupAccount"),
    ("attach the signed PO file to the Coastal Foods account", "linkFileToGroupAccount"),
    ("list all our suplier accounts", "listGroupAccounts"),
    ("emails with anyone over at Bramble & Co", "searchGroupAccountEmails"),
    ("find the account for that logistics firm in Leeds", "searchGroupAccounts"),
    ("Pete moved on from Fairway, take him off their account", "unlinkContactFromGroupAccount"),
    ("change the Lumen account's industry to renewables", "updateGroupAccount"),
    ("how much AI credit has the workspace burned through so far?", "getMyBillingOverview"),
    ("grup accounts tagged strategic", "listGroupAccounts"),
    ("add the domain vantage.co.uk to the Vantage account", "updateGroupAccount"),
]
