"""Development search requests for Email Inbox: written from the area's docs by someone who
has not seen the search, used to improve the search in general ways, and so part of its tuning
part since (docs/catalogue.md, "The measure, in two parts")."""

DEV = [
    ("find the email from Lorenzo about the shipping delay and read it to me", "findAndReadEmail"),
    ("what did the landlord say in his last email?", ("findAndReadEmail", "searchMail")),
    ("dig out the message with the conference booking confirmation", ("findAndReadEmail", "searchMail")),
    ("any emails from HMRC in the last week", ("findAndReadEmail", "searchMail")),
    ("check the Junk folder for anything from the recruiter", ("getInboxMessages", "findAndReadEmail")),
    ("foward the hotel confirmation to my assistant", "forwardEmail"),
    ("pass Angela's complaint email on to the ops manager as an attachment", "forwardEmail"),
    ("fwd that message from the bank to our accountant", "forwardEmail"),
    ("show me whats sitting in my drafs", "listDrafts"),
    ("which emails have I written but not sent yet?", "listDrafts"),
    ("read back the draft I started to the insurers", "getDraft"),
    ("throw away that half-written email to the bank", "deleteDraft"),
    ("ditch the draft reply to Samir", "deleteDraft"),
    (
        "write an email to hello@greenleaf.org asking about their catering rates, don't send it yet",
        "updateDraft",
    ),
    ("change the subject line of my draft to Revised proposal", "updateDraft"),
    ("add Chloe in cc on the draft to the council", "updateDraft"),
    ("draft a reply to Kofi's message saying Thursday works, I'll check it before it goes", "updateDraft"),
    ("what's my email signature at the moment", "getEmailSignature"),
    ("update my signature with my new phone number", "updateEmailSignature"),
    ("remove the sign-off block from the bottom of my sales mailbox emails", "updateEmailSignature"),
    ("which folders does the support mailbox have and how many messages in each", "getInboxFolders"),
    ("what came into my inbox today", "getInboxMessages"),
    ("show unread messages in the shared info@ mailbox", "getInboxMessages"),
    ("list what's in my Sent folder", "getInboxMessages"),
    ("which mailboxes can I use?", "listInboxes"),
    ("how many unread emails have I got across my inboxes", "listInboxes"),
    ("take me to mail settings so I can connect a new Gmail account", "openInboxSettings"),
    ("I need to change the IMAP pasword for the sales mailbox", "openInboxSettings"),
    ("that email I sent Marta last Tuesday never arrived, send it again exactly as it was", "resendEmail"),
    ("resend the welcome message to the new client, they lost it", "resendEmail"),
]
