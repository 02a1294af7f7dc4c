"""Development search requests for Group Accounts: written from the area's docs by someone who
has not seen the search, used to improve the search in general ways, and so part of its tuning
part since (docs/catalogue.md, "The measure, in two parts")."""

DEV = [
    ("set up Oakridge Builders as a customer account", "createGroupAccount"),
    ("add a supplier account for Kettle & Co", "createGroupAccount"),
    ("archvie the Pemberton account, we lost them", "deleteGroupAccount"),
    (
        "everything on the Globex account: how each contact is doing, upcoming meetings, recent emails",
        "examineGroupAccount",
    ),
    ("which people are on the Vantage Media account", "getGroupAccount"),
    ("what documents and files do we hold for the Larkspur account", "getGroupAccountAttachments"),
    ("any meetings coming up with anyone at Brightline?", "getGroupAccountUpcomingEvents"),
    ("how much have we spent on AI this month and how many tool calls", "getMyBillingOverview"),
    ("how much storage is the workspace using", "getMyBillingOverview"),
    ("add Nadia as the billing contact on the Fairhaven account", "linkContactToGroupAccount"),
    ("attach the master services agreement doc to the Orion account", "linkDocumentToGroupAccount"),
    ("link the signed PO file to the Sterling Foods account", "linkFileToGroupAccount"),
    ("show all our supplier accounts", "listGroupAccounts"),
    ("list the accounts tagged enterprise that I own", "listGroupAccounts"),
    ("dig out the emails we've had with anyone at Meridian Health", "searchGroupAccountEmails"),
    ("find the account for that Dutch flower wholesaler", "searchGroupAccounts"),
    ("which client company does Pauline Ruiz belong to?", "searchGroupAccounts"),
    ("Henrik left Zephyr, take him off their account", "unlinkContactFromGroupAccount"),
    ("change Atlas Freight from prospect to customer", "updateGroupAccount"),
    ("update the websit and industry on the Quanta account", "updateGroupAccount"),
    ("add quanta-labs.com to the Quanta account's email domains", "updateGroupAccount"),
    (
        "upcoming calls or meetings with people from the Harbor Freight account",
        "getGroupAccountUpcomingEvents",
    ),
    ("emails from the people at Lumen Partners about the renewal", "searchGroupAccountEmails"),
]
