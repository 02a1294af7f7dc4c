"""Personal data in Provider Travel Search (docs/privacy.md): the results a person's searches found
and the options they saved go with them."""

from apps.core import privacy
from apps.travelsearch.models import Offer, SavedItem

privacy.register(Offer, user="created_by")
privacy.register(SavedItem, user="owner")
