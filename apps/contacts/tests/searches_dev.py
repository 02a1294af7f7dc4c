"""Development search requests for Contacts: written from the area's docs by someone who
has not seen the search, used to improve the search in general ways, and so part of its tuning
part since (docs/catalogue.md, "The measure, in two parts")."""

DEV = [
    (
        "add Priya Raman from Holloway Logistics to my address book, her mobile is 07700 900123",
        "createContact",
    ),
    ("new client organisation: Kestrel Dynamics Ltd, put them in as a company", "createContact"),
    ("save this guy I met at the expo, Ben Okoro, ben@okoro-design.com", "createContact"),
    ("get rid of Gary Tomlins from our contacts, he's left the industry", "deleteContact"),
    ("i accidently deleted Maria Gonzales, can you bring her back", "restoreContact"),
    ("what phone number do we have on file for Dr Okafor", ("searchContacts", "getContact")),
    ("look up someone called Siobhan who works at a bakery in Leeds", "searchContacts"),
    ("who do we kno at Fairweather Insurance?", "searchContacts"),
    (
        "full picture on Hannah Weiss before my call: history, links, how the relationship is going",
        "examineContact",
    ),
    (
        "we've got two entries for the same bloke, Tom Harlow and Thomas Harlow, combine them into one",
        "mergeContacts",
    ),
    (
        "Acme Corp and ACME Corporation got flagged as dupes but they really are different firms, keep both",
        "updateConflictResolution",
    ),
    ("who changed Lena Fischer's job title, and when?", "getContactHistory"),
    ("show me the audit trail of edits on the Dumont record", "getContactHistory"),
    ("who looked after Brian Kells before Sophie took him over", "getContactOwnershipHistory"),
    ("Jonas is leaving on Friday, hand every customer he owns over to Aisha", "transferContactAccounts"),
    ("let Marcus see my private contact for the Henley estate agent", "shareContact"),
    ("is our relationship with Northwind still warm or has it gone cold?", "getContactHealth"),
    (
        "mark the Delgado relationship as at risk, they've gone quiet since the pricing row",
        "updateContactHealth",
    ),
    ("which meetings have we got coming up with Olivia Brandt", "getContactUpcomingEvents"),
    ("pull up the emails we swapped with Fenwick's procurement lady last month", "searchContactEmails"),
    ("what's the two letter code for Ivory Coast", "lookupCountry"),
    ("which country has dialling code +351", "lookupCountry"),
    ("everyone tagged trade-show-2026 who is still only a lead", ("listContacts", "queryContacts")),
    ("how many contacts do I own, newest first", "listContacts"),
    (
        "find contacts whose annual revenue field is over 2 million and who are based in Germany",
        "queryContacts",
    ),
    ("change Tariq's email adress to tariq.h@brightwave.io", "updateContact"),
    ("Colm got promoted to CFO, fix his title on his record", "updateContact"),
    ("for Halden Group, the key people are Ruth (decision maker) then Ivo (finance)", "updateKeyContacts"),
    ("attach the signed NDA document to Pieter van Dijk", "linkDocumentToContact"),
    ("tie the price list PDF we already have in files to the Carter & Sons contact", "linkFileToContact"),
    ("what files have we got stored against Mrs Abernathy", ("listContactFiles", "getContactAttachments")),
    ("all the docs and paperwork hanging off Joe Quinlan's record", "getContactAttachments"),
    ("run a credit check on Bellweather Trading before we give them 60 day terms", "getContactCreditCheck"),
    ("can we trust this new customer to pay up? get me their credit score", "getContactCreditCheck"),
]
