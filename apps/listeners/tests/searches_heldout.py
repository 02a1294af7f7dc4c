"""Requests written from docs/listeners.md before the search hints, never used to tune them (see
test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("automatically open a task whenever a deal is won", "createListener"),
    ("every monday at 9 post a summary, set that up to happen on its own", "createListener"),
    ("open the details of the listener called weekly report", "getListener"),
    ("edit the trigger of my webhook automation", "updateListener"),
    ("change the steps of the listener's flow", "updateListenerFlow"),
    ("what automations do we have in the workspace", "listListeners"),
    ("activate the listener I just created", "activateListener"),
    ("put the automation on hold", "pauseListener"),
    ("turn off this listener, we do not need it anymore", "disableListener"),
    ("trigger the listener manually", "triggerListener"),
    ("history of runs of my listener with their errors", "getListenerRuns"),
    ("cancel a listener run", "cancelListenerRun"),
    ("explain how automation flows and their steps work", "getListenerHelp"),
    ("search records across the workspace to get ids for a flow", ("searchEntities", "searchWorkspace")),
]
