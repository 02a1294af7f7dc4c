"""Held-out search requests for Notifications: written from the area's docs before its search hints,
never used to change hints, vocabulary or weights (docs/catalogue.md, "How searchTools ranks")."""

HELD_OUT = [
    ("show me my unread alerts", "listNotifications"),
    ("find the notification about the Hartley contract from last week", "searchNotifications"),
    ("archive those old alerts about the server", "updateNotification"),
    ("ping Laura to remind her about the expense report", "createNotification"),
    ("send myself a reminder to renew the parking permit", "createNotification"),
    ("let me know whenever someone edits the Bexley contact", "createWatcher"),
    ("follow the onboarding task so I hear about any changes", "createWatcher"),
    ("stop telling me about changes to the Zenith task", "cancelWatcher"),
    ("unfollow the Morgan contact", "cancelWatcher"),
    ("who is keeping an eye on the Riverside contact record?", "listWatchers"),
    ("which records am I wacthing?", "listWatchers"),
    ("open my notifications panel", "openNotifications"),
    ("give me a rundown of my alerts: how many unread, what's high priority", "examineNotifications"),
    ("notificatons from yesterday about tasks", "searchNotifications"),
    ("put Omar on watch for the supplier file so he gets alerted", "createWatcher"),
    ("mark that last alert as unread again", "updateNotification"),
    ("send a high priority alert to the finance lead about the audit", "createNotification"),
    ("show me my archived notifications", "listNotifications"),
]
