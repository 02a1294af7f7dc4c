"""Travellers' names as airlines take them: the name on the travel document, in Latin letters.

Airline reservation systems carry names in A-Z with spaces, hyphens and apostrophes; an accented
letter is sent without its accent and the few Latin letters that do not decompose are spelt out
(Müller: Muller, Søren: Soren, Straße: Strasse), and any other character (a digit, a dot, a
letter of another script, an emoji) is refused with the character named, so that the person
writes the name as it stands in the passport's machine-readable zone."""

import unicodedata

from apps.travel.errors import NameRefused

ALLOWED_MARKS = {" ", "-", "'"}
SPELT = {
    "ø": "o",
    "Ø": "O",
    "ł": "l",
    "Ł": "L",
    "ß": "ss",
    "æ": "ae",
    "Æ": "AE",
    "œ": "oe",
    "Œ": "OE",
    "đ": "d",
    "Đ": "D",
    "þ": "th",
    "Þ": "TH",
    "\u0131": "i",  # dotless i
}


def checked(value: str, *, field: str) -> str:
    """The name in A-Z, trimmed and its spaces single, or NameRefused naming the first refused
    character."""
    name = " ".join(value.split())
    if not name:
        raise NameRefused(field=field, character=value[:1] or " ")
    written = []
    for character in name:
        if character in ALLOWED_MARKS:
            written.append(character)
            continue
        bare = SPELT.get(character) or unicodedata.normalize("NFKD", character)[:1]
        if not bare.isascii() or not bare.isalpha():
            raise NameRefused(field=field, character=character)
        written.append(bare)
    if name[0] in ALLOWED_MARKS or name[-1] in ALLOWED_MARKS:
        raise NameRefused(field=field, character=name[0] if name[0] in ALLOWED_MARKS else name[-1])
    return "".join(written)
