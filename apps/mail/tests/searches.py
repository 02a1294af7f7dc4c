"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("which email accounts and shared inboxes can I use", "listInboxes"),
    ("show the folders of the support mailbox", "getInboxFolders"),
    ("what's new in my inbox, just the unread emails", "getInboxMessages"),
    ("list the latest mail in the sales inbox", "getInboxMessages"),
    ("find the email from Jo about pricing and read it to me", "findAndReadEmail"),
    ("open the message where the customer asked for a refund", "findAndReadEmail"),
    ("forward the supplier's invoice email to accounting", "forwardEmail"),
    ("pass this email on to Priya", "forwardEmail"),
    ("send that email again, the customer says it never arrived", "resendEmail"),
    ("what email drafts have I not sent yet", "listDrafts"),
    ("show me the draft reply to the landlord", "getDraft"),
    ("write an email to Sam saying we'll ship on Monday", "updateDraft"),
    ("draft a reply to the last message from Northwind", "updateDraft"),
    ("what is my email signature", "getEmailSignature"),
    ("change my email sign-off to include my phone number", "updateEmailSignature"),
    ("take me to the mail settings to connect my mailbox", "openInboxSettings"),
    ("delete the draft to the supplier, I will not send it", "deleteDraft"),
    ("throw away my unsent email draft", "deleteDraft"),
]

# Written later, as people say it: colloquial verbs, British and American words, a few typos.
REQUESTS += [
    ("any new mail in my inbox", "getInboxMessages"),
    ("forward Tom's message to the accountant", "forwardEmail"),
    ("pull up the email from the landlord about the lease", "findAndReadEmail"),
    ("draft a response to Kate saying thanks", "updateDraft"),
    ("update my email signature with my new job title", "updateEmailSignature"),
    ("that email bounced, send it again", "resendEmail"),
    ("which mailboxes do I have access to", "listInboxes"),
    ("check my inbox for anything new", "getInboxMessages"),
    ("find the email from Acme about the contract renewal", "findAndReadEmail"),
    ("forward the quote email to finance", "forwardEmail"),
    ("write an email to the landlord about the leak", "updateDraft"),
    ("show my unsent drafts", "listDrafts"),
    ("delete the draft to Tom", "deleteDraft"),
    ("what folders does the sales mailbox have", "getInboxFolders"),
    ("resend the invoice email that bounced", "resendEmail"),
    ("what signature do I use on emails", "getEmailSignature"),
    ("open the email settings page", "openInboxSettings"),
]
