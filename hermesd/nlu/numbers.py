"""English number words → integers (pure). Chinese numerals are handled in :mod:`.normalize`."""

from __future__ import annotations

import re

from .. import lazyre

__all__ = ["EN_NUM", "EN_ORD", "SUM", "en_number", "en_ordinal"]

#: an arithmetic operator between two numbers ("2+2", "12*7", "8÷2", "3×4=12"): a sum, a calculator's question;
#: not "-" or "/", which also join a date (2024-06-12, 6/12) or an id (SO-2024)
SUM = lazyre.compile(r"\d\s*[+*×÷=]\s*\d")

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
         "seventy": 70, "eighty": 80, "ninety": 90}
_ORD_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
              "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
              "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
              "nineteenth": 19, "twentieth": 20, "thirtieth": 30}
_WORD = {w: i for i, w in enumerate(_UNITS)} | _TENS | {"a": 1, "an": 1, "a couple of": 2, "a few": 3}

_unit_alt = "|".join(sorted(_UNITS, key=len, reverse=True))
_tens_alt = "|".join(sorted(_TENS, key=len, reverse=True))
_ord_alt = "|".join(sorted(_ORD_UNITS, key=len, reverse=True))
#: a cardinal written in digits or words ("23", "twenty three", "twenty-three", "a hundred and five").
EN_NUM = (rf"(?:\d+(?:\.\d+)?|(?:(?:{_unit_alt}|a)\s+hundred(?:\s+and)?\s+)?(?:(?:{_tens_alt})(?:[\s-]+(?:{_unit_alt}))?|{_unit_alt})"
          r"|a couple of|a few|an|a)")
#: an ordinal day written in digits or words ("3rd", "third", "twenty-first").
EN_ORD = rf"(?:\d{{1,2}}(?:st|nd|rd|th)?|(?:(?:twenty|thirty)[\s-]+)?(?:{_ord_alt})|(?:twenty|thirty)(?:[\s-]+(?:{_unit_alt}))?|{_unit_alt})"


def en_number(s: str) -> float | None:
    """Value of an English cardinal (digits or words), or None.

    :param s: lower-case text such as ``"21"``, ``"twenty-one"``, ``"a"``, ``"one hundred fifty two"``.
    """
    s = s.strip()
    if not s:
        return None
    if re.fullmatch(r"\d+(?:\.\d+)?", s):
        return float(s) if "." in s else int(s)
    if s in _WORD:
        return _WORD[s]
    total = 0
    current = 0
    for w in re.split(r"[\s-]+", s):
        if w == "and":
            continue
        if w == "hundred":
            current = (current or 1) * 100
        elif w in _WORD:
            current += _WORD[w]
        else:
            return None
    return total + current


def en_ordinal(s: str) -> int | None:
    """Value of an ordinal or cardinal day ("3rd", "third", "twenty-first", "15"), or None."""
    s = s.strip()
    m = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?", s)
    if m:
        return int(m.group(1))
    parts = re.split(r"[\s-]+", s)
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _ORD_UNITS:
        return _TENS[parts[0]] + _ORD_UNITS[parts[1]]
    if len(parts) == 1 and parts[0] in _ORD_UNITS:
        return _ORD_UNITS[parts[0]]
    v = en_number(s)
    return int(v) if isinstance(v, (int, float)) and v == int(v) else None
