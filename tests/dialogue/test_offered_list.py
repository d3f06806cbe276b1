"""A bare position ("第二个", "the second one") answers the list the last turn offered
(:func:`hermesd.dialogue.lastaction.offered_list`)."""

from __future__ import annotations

import pytest

from hermesd.dialogue.lastaction import offered_list

TOOL_OK = {"kind": "tool", "tool": "reminder", "outcome": "ok"}
LISTED = {"intent": "reminder.cancel", "failure": {"index": 1, "code": "AMBIGUOUS"}, "actions": [TOOL_OK],
          "reply": "关于“银行”的提醒有 3 个：… 要取消哪一个？"}
SHOWN_FIRST = {"intent": "reminder.cancel", "entities": {"ordinal": ["2"]}, "actions": [TOOL_OK],
               "reply": "先看一下有哪些：… 要取消第几个？"}


@pytest.mark.parametrize("history, intent", [
    ([LISTED], "reminder.cancel"),                                    # several found where one was needed
    ([SHOWN_FIRST], "reminder.cancel"),                               # asked with a position, the list shown
    ([LISTED, {"intent": "device.disk_space", "actions": [TOOL_OK], "reply": "…"}], None),  # not the last turn
    ([{**LISTED, "failure": {"code": "NOT_FOUND"}}], None),            # none found: nothing to choose from
    ([{**SHOWN_FIRST, "actions": [TOOL_OK, {"kind": "confirm", "outcome": "waiting"}]}], None),  # a card was shown
    ([{"intent": "reminder.set", "actions": [TOOL_OK], "reply": "好的"}], None),
    ([{**LISTED, "intent": None}], None), ([], None),
])
def test_the_list_just_offered(history, intent):
    assert offered_list(history) == intent
