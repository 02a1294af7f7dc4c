"""Requests for searchTools written blind (fifth round), from the docs and the tools' descriptions."""

DEV = [
    ("ping Sarah to let her know the contract's ready to sign", "createNotification"),
    ("remind me tomorrow at 10 to call the bank", "createNotification"),
    ("notify Dev that the Orion deal changed owner", "createNotification"),
    ("show my notifications", "listNotifications"),
    ("any new alerts?", "listNotifications"),
    ("find the notification about the leave request from last week", "searchNotifications"),
    ("did I get notified about the Kestrel task?", "searchNotifications"),
    ("clear all my unread notifications, I've seen them", "updateNotification"),
    ("archive those old alerts", "updateNotification"),
    ("mark that one unread again so I come back to it", "updateNotification"),
    ("what needs my attention first in my notifications?", "examineNotifications"),
    ("summarise my notifications and tell me what's urgent", "examineNotifications"),
    ("open the notifications panel so the bell count clears", "openNotifications"),
    ("mark my notifications as seen", "openNotifications"),
    ("let me know whenever someone edits the Pinewood contact", "createWatcher"),
    ("follow the quarterly report task so I get updates", "createWatcher"),
    ("what records am I watching?", "listWatchers"),
    ("who's following the Northwind contact?", "listWatchers"),
    ("stop notifying me about changes to that task", "cancelWatcher"),
    ("unfollow the Orion deal contact", "cancelWatcher"),
]
