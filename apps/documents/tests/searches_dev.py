"""Development search requests for Documents: written from the area's docs by someone who
has not seen the search, used to improve the search in general ways, and so part of its tuning
part since (docs/catalogue.md, "The measure, in two parts")."""

DEV = [
    ("draft a new doc called Remote working guidelines with these headings", "createDocument"),
    ("write up the meeting minutes as a document", "createDocument"),
    ("start a fresh page for the product roadmap, in markdown", "createDocument"),
    ("set up a folder for all our policy write-ups", "createDocumentFolder"),
    ("new docs folder named Client Proposals inside Sales please", "createDocumentFolder"),
    ("get rid of the outdated travel policy doc", "deleteDocument"),
    ("trash the duplicte Q2 retro write-up", "deleteDocument"),
    ("turn the staff handbook into a PDF", "exportDocumentToPdf"),
    ("I need a printable version of the proposal to hand to the client", "exportDocumentToPdf"),
    ("open the style guide and tell me what it says", "getDocument"),
    ("what did the pricing memo look like two versions ago", "getDocument"),
    ("who has the board paper been shared with, and which files are attached to it", "getDocument"),
    ("list everything in the Legal docs folder", "listDocuments"),
    ("do we have a write-up on the returns process somewhere?", "listDocuments"),
    ("show me the most recently edited documents", "listDocuments"),
    ("move the onboarding doc into the HR folder", "moveDocument"),
    ("file the Brand voice document under Marketing", "moveDocument"),
    ("let Dimitri edit the grant aplication doc", "shareDocument"),
    ("make the strategy memo visible to the whole workspace", "shareDocument"),
    ("stop sharing the board notes with Kevin", "shareDocument"),
    ("add a paragraph about parking at the end of the office guide", "updateDocument"),
    ("fix the typo in the title of the FAQ page", "updateDocument"),
    ("rewrite the intro of the sustainability report with this text", "updateDocument"),
]
