"""Development search requests for Marketing: everyday phrasings of the same jobs (bulk e-mail,
subscribers, open and click rates), used to improve the search in general ways, and so part of
its tuning part (docs/catalogue.md, "The measure, in two parts")."""

DEV = [
    ("group our subscribers in France into a list for mailings", "createMarketingSegment"),
    ("only customers whose stage is customer should be in the audience", "updateMarketingSegment"),
    ("what audiences can I send mailings to", "listMarketingSegments"),
    ("check the recipients before the blast goes out", "previewSegmentContacts"),
    ("how many subscribers would get the mailing", "previewSegmentContacts"),
    ("prepare a bulk email to our subscribers about the summer offer", "createMarketingCampaign"),
    ("fix a typo in the mailing's text", "updateMarketingCampaign"),
    ("open the summer offer mailing", "getMarketingCampaign"),
    ("list the mailings we sent this year", "searchMarketingCampaigns"),
    ("send the bulk email out to subscribers", "launchMarketingCampaign"),
    ("hold off the blast, stop sending it", "pauseMarketingCampaign"),
    ("put the mailing on autopilot so the assistant can send it alone", "setCampaignAutonomy"),
    ("open rate and click rate of the summer mailing", "getCampaignPerformance"),
    ("how many people unsubscribed after the last blast", "getCampaignPerformance"),
    ("summary of our marketing: mailings, audiences, unsubscribes", "getMarketingDashboard"),
]
