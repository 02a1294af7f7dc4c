"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("add Jordan to the finance team", "addMemberToDepartment"),
    ("put Ines in the London office as deputy manager", "addMemberToDepartment"),
    ("set up a new Customer Success team under Operations", "createDepartment"),
    ("create a Berlin office unit with Katja in charge", "createDepartment"),
    ("get rid of the Events team, it's been disbanded", "deleteDepartment"),
    ("remove the Temp Projects department from the org chart entirely", "deleteDepartment"),
    ("who's in the marketing department and who runs it", "getDepartment"),
    (
        "show me the Legal team: its people, their roles and the outside contacts it works with",
        "getDepartment",
    ),
    (
        "the facilities team works with Hugo Brandt, the supplier's engineer; record him as their contact",
        "linkContactToDepartment",
    ),
    ("connect the buyer at our client Tesco to the procurement department", "linkContactToDepartment"),
    ("what teams do we have in the organisation", "listDepartments"),
    ("show every department with its head and headcount", "listDepartments"),
    ("take Oliver off the support team", "removeMemberFromDepartment"),
    ("Ravi no longer belongs to the design unit, drop him from it", "removeMemberFromDepartment"),
    ("which department uses the address hr@atlas.example", "searchDepartments"),
    ("find the team that Lucia Fernandez is part of", "searchDepartments"),
    ("is there a department dealing with data protection", "searchDepartments"),
    (
        "the IT team no longer deals with the Dell account manager, unlink him from them",
        "unlinkContactFromDepartment",
    ),
    ("take the external auditor off the finance department's contacts", "unlinkContactFromDepartment"),
    ("rename the Support team to Customer Care", "updateDepartment"),
    ("make Amara the new head of engineering", "updateDepartment"),
    ("move the QA team so it sits under Engineering", "updateDepartment"),
]

# Written later, as people say it: colloquial verbs, British and American words, a few typos.
REQUESTS += [
    ("set up a new team called Logistics", "createDepartment"),
    ("put Raj in the finance department", "addMemberToDepartment"),
    ("take Lucy out of the sales team", "removeMemberFromDepartment"),
    ("who's in the HR department and who heads it", "getDepartment"),
    ("show all our departments", "listDepartments"),
    ("make Ops report to the COO's division", "updateDepartment"),
    ("close down the Brighton office department", "deleteDepartment"),
    ("create a department for customer success", "createDepartment"),
    ("add Leo to the marketing team as a designer", "addMemberToDepartment"),
    ("remove Sara from the finance team", "removeMemberFromDepartment"),
    ("rename the ops department to operations", "updateDepartment"),
    ("find the department that looks after payroll", "searchDepartments"),
    ("list the teams in the company", "listDepartments"),
    ("link our accountant contact to the finance department", "linkContactToDepartment"),
    # Written from the area's docs, knowing the search, to find what it did not generalise to.
    ("create a Customer Success team under Sales", "createDepartment"),
    ("who heads Finance", "getDepartment"),
    ("org chart of the company", "listDepartments"),
    ("which team does Aisha belong to", "searchDepartments"),
    ("make Paul the head of Marketing", "updateDepartment"),
    ("Finance should sit under Operations now", "updateDepartment"),
    ("disband the Events team", "deleteDepartment"),
    ("add Jo to the Finance team", "addMemberToDepartment"),
    ("Jo is leaving the Finance team", "removeMemberFromDepartment"),
    ("record Acme Couriers as a contact of Logistics", "linkContactToDepartment"),
]

# Written in the third round, after its blind set, to look for more of the kinds it missed.
REQUESTS += [
    ("who heads up legal", ("getDepartment", "searchDepartments")),
    ("split marketing into brand and growth teams", "createDepartment"),
    ("Aoife joined the design team today", "addMemberToDepartment"),
    ("which teams sit under Operations", ("listDepartments", "getDepartment")),
    ("Zoe left the support team", "removeMemberFromDepartment"),
    ("who's in charge of finance", ("getDepartment", "searchDepartments")),
    ("give me the org chart", "listDepartments"),
    ("Rita now leads the sales team", "updateDepartment"),
    ("Sales needs its own inbox address sales@acme.com", "updateDepartment"),
    ("what does the facilities team do", "getDepartment"),
    ("merge the two marketing teams", ("updateDepartment", "deleteDepartment")),
    ("we're shutting the Bristol office", "deleteDepartment"),
]
