"""Numbers past the calendar (year 9999) give an invalid time expression, never an exception."""

from datetime import datetime, timezone

import pytest

from hermesd.nlu.temporal import parse_times

REF = datetime(2024, 6, 19, 2, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("text", ["99999999天后", "in 99999999 days", "10000年后", "9999年12月31日之后3天",
                                  "99999999 years ago", "从今天到99999999天后"])
def test_beyond_the_calendar_is_invalid_not_an_error(text):
    exprs = parse_times(text, REF, "Asia/Shanghai")
    assert any(e.kind == "invalid" and e.reason for e in exprs)
