"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("stop telling me about changes to the Hartley contact", "cancelWatcher"),
    ("unfollow the server migration task", "cancelWatcher"),
    ("send Noah a heads-up that the contract is signed", "createNotification"),
    ("ping Zara about the Baker client so she sees it in her alerts", "createNotification"),
    ("leave myself a reminder about the expense report", "createNotification"),
    ("let me know whenever someone changes the Brookfield contact", "createWatcher"),
    ("follow the hiring task so I hear about every update", "createWatcher"),
    ("make Ellie a watcher on the Fenwick customer", "createWatcher"),
    ("what needs my attention in my notifications, anything urgent?", "examineNotifications"),
    ("give me a breakdown of my unread alerts by kind and record", "examineNotifications"),
    ("show my latest notifications", "listNotifications"),
    ("what alerts have I had recently", "listNotifications"),
    ("who is following the supplier onboarding task", "listWatchers"),
    ("which records am I keeping an eye on", "listWatchers"),
    ("open my notifications page and clear the new count", "openNotifications"),
    ("show me what's new in my inbox of alerts and count it as seen", "openNotifications"),
    ("find the notification about the Henderson contract from last week", "searchNotifications"),
    ("any alerts mentioning the payroll task?", "searchNotifications"),
    ("mark all my notifications as read", "updateNotification"),
    ("archive the alert about the cancelled meeting", "updateNotification"),
    ("flag that last notification as unread again", "updateNotification"),
]

# Written later, as people say it: colloquial verbs, British and American words, a few typos.
REQUESTS += [
    ("tell me when anyone changes the Acme contact", "createWatcher"),
    ("ping Sarah to remind her about the report", "createNotification"),
    ("mark all my alerts as read", "updateNotification"),
    ("what notifications did I get about invoices", "searchNotifications"),
    ("stop following that task", "cancelWatcher"),
    ("what needs my attention in my notifications", "examineNotifications"),
    ("what notifications have I got", "listNotifications"),
    ("remind me tomorrow to call the bank", "createNotification"),
    ("mark my notifications as read", "updateNotification"),
    ("watch the Globex deal for changes", "createWatcher"),
    ("who is watching the budget task", "listWatchers"),
    ("stop notifying me about the Acme deal", "cancelWatcher"),
    ("search my alerts for the word invoice", "searchNotifications"),
    # Written from the area's docs, knowing the search, to find what it did not generalise to.
    ("tell Sam the report is ready", "createNotification"),
    ("stop following the Acme contact", "cancelWatcher"),
    ("follow the invoice task so I hear about changes", "createWatcher"),
    ("clear my unread count", "openNotifications"),
    ("mark every notification as read", "updateNotification"),
    ("what notifications did I get about the Crest deal", "searchNotifications"),
]
