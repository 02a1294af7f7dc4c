"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("write up the minutes of today's board meeting as a new doc", "createDocument"),
    ("draft a proposal for Hillcrest with pricing and a timeline", "createDocument"),
    ("start a new note called onboarding checklist", "createDocument"),
    ("make a folder for the 2025 contracts among our docs", "createDocumentFolder"),
    ("create a Policies folder to keep our written policies in", "createDocumentFolder"),
    ("bin the draft press release doc", "deleteDocument"),
    ("delete the outdated travel policy document", "deleteDocument"),
    ("turn the Q3 report doc into a PDF", "exportDocumentToPdf"),
    ("I need a pdf version of the service agreement write-up to send out", "exportDocumentToPdf"),
    ("open the onboarding guide doc and show me what it says", "getDocument"),
    ("what did the pricing doc say back in version 2", "getDocument"),
    ("what docs are in the HR folder", "listDocuments"),
    ("find any document that mentions GDPR", "listDocuments"),
    ("move the sales playbook doc into the Sales folder", "moveDocument"),
    ("take the meeting notes doc out of Archive and put it back at the top level", "moveDocument"),
    ("let Grace edit the roadmap doc", "shareDocument"),
    ("make the holiday policy write-up visible to everyone", "shareDocument"),
    ("stop Karl from seeing the salary review notes", "shareDocument"),
    ("fix the typo in the title of the Q2 strategy doc", "updateDocument"),
    ("add a section on risks to the project brief document", "updateDocument"),
    ("replace the text of the FAQ note with this new version", "updateDocument"),
]

# Written later, as people say it: colloquial verbs, British and American words, a few typos.
REQUESTS += [
    ("write up meeting minutes as a new doc", "createDocument"),
    ("turn the proposal doc into a pdf", "exportDocumentToPdf"),
    ("edit the onboarding guide to add the wifi password", "updateDocument"),
    ("let Omar edit the pricing memo", "shareDocument"),
    ("find the doc about our return policy", "listDocuments"),
    ("make a folder for board papers", ("createDocumentFolder", "createFileFolder")),
    ("bin the old draft of the handbook", "deleteDocument"),
    ("create a doc with the meeting notes", "createDocument"),
    ("export the handbook as a pdf", "exportDocumentToPdf"),
    ("change the title of the sales playbook doc", "updateDocument"),
    ("move the policy document into the HR folder", "moveDocument"),
    ("share the roadmap doc with the team lead", "shareDocument"),
    ("delete the old draft document", "deleteDocument"),
    ("make a new folder for contracts in documents", "createDocumentFolder"),
    ("read the onboarding doc", "getDocument"),
    # Written from the area's docs, knowing the search, to find what it did not generalise to.
    ("show the history of versions of the pricing doc", "getDocument"),
    ("find docs about onboarding", "listDocuments"),
    ("move the policy doc to the HR folder", "moveDocument"),
]
