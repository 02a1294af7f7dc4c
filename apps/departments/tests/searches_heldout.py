"""Held-out search requests for Departments: written from the area's docs before its search hints,
never used to change hints, vocabulary or weights (docs/catalogue.md, "How searchTools ranks")."""

HELD_OUT = [
    ("set up a new Customer Success department", "createDepartment"),
    ("create a team called Platform Engineering under Engineering", "createDepartment"),
    ("add Grace to the Finance department as an analyst", "addMemberToDepartment"),
    ("take Leo out of the Sales team", "removeMemberFromDepartment"),
    ("who's in the legal department and who heads it up?", "getDepartment"),
    ("list all our departments", "listDepartments"),
    ("which department is Yusuf in?", "searchDepartments"),
    ("find the department that looks after procurement", "searchDepartments"),
    ("make Hannah head of Opertions", "updateDepartment"),
    ("rename the Ops department to Operations & Facilities", "updateDepartment"),
    ("close down the Research unit, it's being folded into Product", "deleteDepartment"),
    ("link our accountant's contact to the Finance dept as external auditor", "linkContactToDepartment"),
    ("remove the old printer supplier from Facilities' contacts", "unlinkContactFromDepartment"),
    ("what sub-teams sit under Product?", ("getDepartment", "listDepartments")),
    ("move the Design team so it sits under Marketing", "updateDepartment"),
    ("put new starter lena@acme.io in the Support team", "addMemberToDepartment"),
    ("deparment for customer complaints?", "searchDepartments"),
    ("the Brighton office: who are its members?", "getDepartment"),
    ("just the top-level departments please", "listDepartments"),
]
