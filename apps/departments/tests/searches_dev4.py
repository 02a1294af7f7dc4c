"""Requests for searchTools written blind (fifth round), from the docs and the tools' descriptions."""

DEV = [
    ("set up a new Customer Success team", "createDepartment"),
    ("create a department for the Manchester office under Operations", "createDepartment"),
    ("make Lena head of Finance", "updateDepartment"),
    ("change the IT department's email to it@company.com", "updateDepartment"),
    ("Design now sits under Product, change its parent", "updateDepartment"),
    ("we've scrapped the Innovation Lab team, delete it", "deleteDepartment"),
    ("who's in the Sales department and who runs it?", "getDepartment"),
    ("show me the Legal team", "getDepartment"),
    ("how many people in each team?", "listDepartments"),
    ("which team is Joe Park in?", "searchDepartments"),
    ("find the department that handles payroll", "searchDepartments"),
    ("add Kim to the Marketing team as a coordinator", "addMemberToDepartment"),
    ("make Raj deputy lead in Support", "addMemberToDepartment"),
    ("take Owen out of the Warehouse team", "removeMemberFromDepartment"),
    ("Ellie's moved on from HR, remove her from the department", "removeMemberFromDepartment"),
    ("link our accountant at Baker & Co to the Finance department", "linkContactToDepartment"),
    (
        "the IT team deals with the Dell account rep, add him as their supplier contact",
        "linkContactToDepartment",
    ),
    ("unlink the old cleaning company contact from Facilities", "unlinkContactFromDepartment"),
    (
        "Facilities no longer uses that courier, remove the contact from the team",
        "unlinkContactFromDepartment",
    ),
]
