"""Requests for searchTools written blind (fourth round), from the docs and the tools' descriptions."""

DEV = [
    ("set up a Procurement department with procurement@firm.co as its mailbox", "createDepartment"),
    ("new sub-team 'Payroll' inside Finance please", "createDepartment"),
    ("Lena's taken over as head of the customer support dept", "updateDepartment"),
    ("update the description of the IT department to say they handle laptops and access", "updateDepartment"),
    ("Compliance isn't part of Legal anymore, make it a top level department", "updateDepartment"),
    ("remove the Interns department", "deleteDepartment"),
    ("we've wound up the Dublin branch, delete its department", "deleteDepartment"),
    ("give me a breakdown of the Sales department - members, head, sub-teams", "getDepartment"),
    ("which sub-teams does Engineering have?", ("getDepartment", "listDepartments")),
    ("who are the outside contacts attached to the Facilities department", "getDepartment"),
    ("list all departments under Operations", ("listDepartments", "getDepartment")),
    ("how many departments have we got and who leads each", "listDepartments"),
    ("search the departments for anything to do with facilities", "searchDepartments"),
    ("which dept is Gareth Pryce in", "searchDepartments"),
    ("add tom@ourfirm.com to Logistics as driver", "addMemberToDepartment"),
    ("Nadia is now the deputy in the Design team rather than a plain member", "addMemberToDepartment"),
    ("Paolo's transferred out of the warehouse team", "removeMemberFromDepartment"),
    ("remove priya@ourfirm.com from the events department", "removeMemberFromDepartment"),
    (
        "associate our landlord contact, Hargreaves Property, with Facilities as landlord",
        "linkContactToDepartment",
    ),
    ("the recruiter at TalentBridge is HR's main agency contact, link them", "linkContactToDepartment"),
    ("we stopped using Swift Couriers, unlink them from the Logistics team", "unlinkContactFromDepartment"),
]
