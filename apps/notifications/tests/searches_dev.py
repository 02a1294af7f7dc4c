"""Development search requests for Notifications: written from the area's docs by someone who
has not seen the search, used to improve the search in general ways, and so part of its tuning
part since (docs/catalogue.md, "The measure, in two parts")."""

DEV = [
    ("remind me to chase the signed contract", "createNotification"),
    ("ping Harriet that the slides are ready", "createNotification"),
    ("give Devon a high priority heads-up that the server move is tonight", "createNotification"),
    ("keep me posted whenever someone edits the Bolton contact", "createWatcher"),
    ("I want an alert each time anybody changes the launch task", "createWatcher"),
    ("make Ellie follow the Riverside group account so she hears about changes", "createWatcher"),
    ("stop telling me about changes to that contract file", "cancelWatcher"),
    ("unfolow the Q4 planning task", "cancelWatcher"),
    ("what am I following at the moment", "listWatchers"),
    ("who's keeping an eye on the Patel contact?", "listWatchers"),
    ("anything urgent I need to deal with in my alerts?", "examineNotifications"),
    ("give me a rundown of my unread alerts so I know what to tackle first", "examineNotifications"),
    ("list just my unread high priority notifcations", "listNotifications"),
    ("find the notification about the invoice approval from last Tuesday", "searchNotifications"),
    ("any alerts mentioning the Hadley deal this month?", "searchNotifications"),
    ("archive those three alerts about the server", "updateNotification"),
    ("flag that one as unread again so I remember it", "updateNotification"),
    ("what's new under the bell icon?", "openNotifications"),
]
