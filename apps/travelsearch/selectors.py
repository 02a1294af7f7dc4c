"""Provider Travel Search's reads: the saved options a person may see (their own, and those shared
with the workspace), and the answers' shapes."""

from typing import Any

from apps.core.records import RecordQuerySet
from apps.travelsearch.models import Offer, SavedItem
from apps.travelsearch.shapes import ResultOut, SavedOut


def saved(actor: Any, *, most: int = 20) -> RecordQuerySet[SavedItem]:
    return SavedItem.objects.restrict(actor).select_related("owner").order_by("-updated_at", "-id")[:most]


def result_out(offer: Offer) -> ResultOut:
    return ResultOut.of_record(
        offer, provider_page=offer.deep_link, details=offer.snapshot.get("details") or {}
    )


def saved_out(item: SavedItem) -> SavedOut:
    return SavedOut.of_record(
        item,
        result_id=item.offer_id,
        provider_page=item.deep_link,
        shared=item.shared,
        saved_by=item.owner.get_full_name() or item.owner.email if item.owner else "",
        saved_at=item.created_at,
    )
