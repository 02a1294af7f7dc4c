"""Requests people make of the Deals area's deal finders, reachout campaigns and e-mail, with the
tool searchTools should find (apps/deals/tests/searches.py gathers them)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("find new prospects that match our ideal customer profile", "createDealFinder"),
    ("set up a prospecting search for logistics companies in Germany", "createDealFinder"),
    ("run the deal finder again now", "controlDealFinder"),
    ("pause the prospecting search for retailers", "controlDealFinder"),
    ("which leads did the deal finder find", "getDealFinder"),
    ("show my saved prospecting searches", "listDealFinders"),
    ("write a cold email sequence to these prospects", "createReachoutCampaign"),
    ("create an outreach campaign with three follow-up emails", "createReachoutCampaign"),
    ("launch the outreach sequence", "controlReachoutCampaign"),
    ("stop the cold email campaign now", "controlReachoutCampaign"),
    ("how many replies and bounces did the outreach campaign get", "getReachoutCampaign"),
    ("list our outbound email sequences", "listReachoutCampaigns"),
    ("who will the outreach sequence email next", "previewReachoutRecipients"),
    ("read the email the prospect sent about the deal", ("getInboxMessage", "findAndReadEmail")),
    ("search my mail for messages from the buyer at Northwind", ("searchMail", "findAndReadEmail")),
    ("reply to the customer's email saying Friday works", "replyEmail"),
    ("send the draft I wrote to the buyer", "sendDraft"),
    ("email the deal contact to ask about their budget and timeline", "requestDealInfoEmail"),
]
