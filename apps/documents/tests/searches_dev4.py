"""Requests for searchTools written blind (fifth round), from the docs and the tools' descriptions."""

DEV = [
    ("write up the meeting minutes as a new doc", "createDocument"),
    ("start a document called 'Q3 marketing plan'", "createDocument"),
    ("draft a one-page policy on expenses and save it as a document", "createDocument"),
    ("pull up the staff handbook document", "getDocument"),
    ("what does the pricing doc say about discounts?", "getDocument"),
    ("show earlier versions of the proposal document", "getDocument"),
    ("what docs are in the Contracts folder", "listDocuments"),
    ("find the doc about the office move", "listDocuments"),
    ("have we got a write-up on the onboarding process somewhere?", "listDocuments"),
    ("add a paragraph about holidays to the handbook", "updateDocument"),
    ("rename the doc to 'Final - Board pack'", "updateDocument"),
    ("fix the typos in the sales playbook", "updateDocument"),
    ("move the meeting notes into the 2026 folder", "moveDocument"),
    ("file the contract template under Legal", "moveDocument"),
    ("delete the old draft policy document", "deleteDocument"),
    ("bin that doc, it's obsolete", "deleteDocument"),
    ("export the Kestrel proposal as a PDF", "exportDocumentToPdf"),
    ("save the board report as pdf so I can send it", "exportDocumentToPdf"),
    ("print the handbook to PDF", "exportDocumentToPdf"),
    ("read me the project brief", "getDocument"),
]
