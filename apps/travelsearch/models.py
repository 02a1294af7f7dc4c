"""Provider Travel Search's records: what a search found, kept as a snapshot with its expiry
(Offer: a flight, a property's room, a car, an activity's dated offer), and the options a person
saved from them to a shortlist (SavedItem: theirs alone unless shared with the workspace)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, OwnedRecord, Record, Visibility
from apps.travelsearch.permissions import TravelSearchPerm


class Kind(models.TextChoices):
    FLIGHT = "flight", _("flight")
    PROPERTY = "property", _("property")
    CAR = "car", _("car")
    ACTIVITY = "activity", _("activity")


class Option(models.Model):
    """What a result and a saved option both hold: the provider's id, what a person compares, the
    total with taxes and mandatory fees, how long the price holds, the provider's page."""

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    provider = models.CharField(_("provider"), max_length=20)
    # The provider's id: a Duffel offer (off_...), a Booking.com property, product, car offer or
    # attraction offer.
    provider_id = models.CharField(_("provider's id"), max_length=200)
    title = models.CharField(_("title"), max_length=300)
    # Taxes and the provider's mandatory fees included (what a person pays in all); a saved
    # option's as the provider gave it when saved.
    total = models.DecimalField(_("total"), max_digits=12, decimal_places=2)
    currency = models.CharField(_("currency"), max_length=3)
    starts_on = models.DateField(_("starts"))
    ends_on = models.DateField(_("ends"), null=True, blank=True)
    expires_at = models.DateTimeField(_("price held until"))
    deep_link = models.URLField(_("provider's page"), max_length=2000, blank=True)
    # What the provider said, trimmed to what a person compares, and the criteria searched.
    snapshot = models.JSONField(default=dict)

    class Meta:
        abstract = True


class Offer(Option, Record):
    """One result as the provider gave it: never bookable as kept, only until `expires_at`."""

    # Its finder's (what someone looks for says where they go); the area's admins see every one.
    access = Access(
        TravelSearchPerm,
        visibility="owner",
        owner="created_by",
        manage=TravelSearchPerm.SEARCH,
        label=_("Travel search result"),
        find_with="searchProviderProperties",
    )

    # The property or attraction a product or dated offer belongs to (details and availability).
    parent_id = models.CharField(_("provider's parent id"), max_length=200, blank=True)

    class Meta:
        indexes = [models.Index(fields=["created_by", "-created_at"], name="travelsearch_offer_by")]

    def __str__(self) -> str:
        return self.title


class SavedItem(Option, OwnedRecord):
    """An option saved to its owner's shortlist: the snapshot and price as they were when saved."""

    access = Access(
        TravelSearchPerm,
        manage=TravelSearchPerm.SEARCH,
        label=_("Saved travel option"),
        find_with="getProviderSummary",
    )

    # The result it was saved from (gone when its finder's data is erased: the item keeps its copy).
    offer = models.ForeignKey(Offer, on_delete=models.SET_NULL, null=True, blank=True, related_name="saved")
    note = models.CharField(_("note"), max_length=500, blank=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "-created_at"], name="travelsearch_saved_by")]

    def __str__(self) -> str:
        return self.title

    @property
    def shared(self) -> bool:
        return self.visibility == Visibility.WORKSPACE
