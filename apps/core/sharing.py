"""Sharing a record with people of the workspace: one share row per person, "view" or "edit".

An area's share model has a foreign key to the record (related name `shares`) and the fields
`user`, `access`, `shared_by`; the area's service checks who may share and with whom, then:

    before = sharing.set_share(task.shares, person=person, access="edit", actor=actor)
"""

from typing import Any


def set_share(shares: Any, *, person: Any, access: str, actor: Any) -> str:
    """Gives `person` `access` ("view" or "edit") through the record's `shares` manager, or takes
    it away ("none"). Returns the access they had before ("none" when they had none)."""
    share = shares.filter(user=person).first()
    before = share.access if share is not None else "none"
    if access == "none":
        if share is not None:
            share.delete()
    elif share is None:
        shares.create(user=person, access=access, shared_by=actor)
    elif share.access != access:
        share.access = access
        share.save(update_fields=["access"])
    return before
