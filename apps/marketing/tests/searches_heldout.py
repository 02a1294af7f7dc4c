"""Held-out requests for the Marketing area, written from docs/marketing.md and SPEC.md 4.7 before
any search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("new audience of leads from London", "createMarketingSegment"),
    ("edit the filters of a marketing segment", "updateMarketingSegment"),
    ("drop a marketing segment", "deleteMarketingSegment"),
    ("list marketing audiences", "listMarketingSegments"),
    ("dry run of who gets the mailing", "previewSegmentContacts"),
    ("set up a promotional email to subscribers", "createMarketingCampaign"),
    ("edit the text of the draft mailing", "updateMarketingCampaign"),
    ("open the mailing about our webinar", "getMarketingCampaign"),
    ("look up past newsletters", "searchMarketingCampaigns"),
    ("get rid of a draft mailing", "deleteMarketingCampaign"),
    ("go ahead and send the mailing", "launchMarketingCampaign"),
    ("hold the mailing halfway", "pauseMarketingCampaign"),
    ("how much may the AI send campaigns on its own", "setCampaignAutonomy"),
    ("results of last week's mailing", "getCampaignPerformance"),
    ("marketing at a glance", "getMarketingDashboard"),
    # Content and social posting, written before their hints.
    ("what social profiles can we post from", "listSocialAccounts"),
    ("queue a toot for next week", "scheduleSocialPost"),
    ("reschedule a planned social media post", "manageSocialPost"),
    ("draft copy for a LinkedIn style ad", "createMarketingContent"),
    ("read the copy of a marketing content item", "getMarketingContent"),
    ("edit the wording of the newsletter copy", "updateMarketingContent"),
    ("remove a piece of marketing content", "deleteMarketingContent"),
    ("search marketing copy by keyword", "searchMarketingContent"),
    ("publish a content item", "publishMarketingContent"),
    ("AI writes a promotional email in our brand voice", "generateMarketingContent"),
]
