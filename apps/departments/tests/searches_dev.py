"""Development search requests for Departments: written from the area's docs by someone who
has not seen the search, used to improve the search in general ways, and so part of its tuning
part since (docs/catalogue.md, "The measure, in two parts")."""

DEV = [
    ("put Gemma in the Finance team as team lead", "addMemberToDepartment"),
    ("add the new starter raj@ourco.com to Customer Success", "addMemberToDepartment"),
    ("change Mo's role in Finance from member to deputy", "addMemberToDepartment"),
    ("set up a new department called Partnerships under Sales", "createDepartment"),
    ("we're opening a Lisbon office, create a unit for it", "createDepartment"),
    ("shut down the Events team department, it's being folded into Marketing", "deleteDepartment"),
    ("who's in the Legal department and who heads it", "getDepartment"),
    ("which outside contacts does Procurement deal with", "getDepartment"),
    ("note that IT's main contact at Dell is Craig, as account rep", "linkContactToDepartment"),
    ("show all our departments with their head counts", "listDepartments"),
    ("what are the top level divisions of the company", "listDepartments"),
    ("departmnet list pls", "listDepartments"),
    ("take Owen out of the Warehose team", "removeMemberFromDepartment"),
    ("which department is Valentina in?", "searchDepartments"),
    ("is there a team that handles payroll?", "searchDepartments"),
    ("drop the old courier from Logistics' list of contacts", "unlinkContactFromDepartment"),
    ("make Beatriz head of Operations", "updateDepartment"),
    ("rename R&D to Product Engineering", "updateDepartment"),
    ("change the shared mailbox address of the support department", "updateDepartment"),
    ("move the Design team under Product", "updateDepartment"),
    ("Hamid is no longer part of the Sales unit, remove him", "removeMemberFromDepartment"),
]
