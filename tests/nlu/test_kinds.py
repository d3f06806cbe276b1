"""Utterance kind in zh and en."""

import pytest

from hermesd.nlu.kinds import utterance_kind
from hermesd.nlu.normalize import normalize

CASES = [
    ("不对，是李工", "correction"), ("不是张工，是李工", "correction"), ("错了，应该是周四", "correction"),
    ("我是说下周三", "correction"), ("改成明天", "correction"), ("no, I meant Thursday", "correction"),
    ("I meant the invoice", "correction"), ("actually make it 3pm", "correction"), ("no, it's Li", "correction"),
    ("是李工不是张工", "correction"),
    ("取消", "cancel"), ("算了", "cancel"), ("算了吧", "cancel"), ("不用了", "cancel"), ("cancel", "cancel"),
    ("never mind", "cancel"), ("forget it", "cancel"), ("stop", "cancel"), ("退出", "cancel"),
    ("好的", "affirm"), ("好", "affirm"), ("是的", "affirm"), ("对", "affirm"), ("可以", "affirm"), ("确认", "affirm"),
    ("没问题", "affirm"), ("yes", "affirm"), ("Yes!", "affirm"), ("ok", "affirm"), ("sure", "affirm"),
    ("go ahead", "affirm"), ("嗯嗯", "affirm"),
    ("不", "deny"), ("不要", "deny"), ("不用", "deny"), ("no", "deny"), ("nope", "deny"), ("No.", "deny"),
    ("磁盘还剩多少空间？", "question"), ("明天会下雨吗", "question"), ("nginx还在运行吗", "question"),
    ("what is my disk usage", "question"), ("is the network up?", "question"), ("谁发的报价单", "question"),
    ("订单到哪了?", "question"), ("how much space is left", "question"),
    ("把报价单发给张工", "command"), ("重启nginx", "command"), ("restart nginx", "command"),
    ("send the quote to Mr. Smith", "command"), ("帮我查一下订单状态好吗", "command"),
    ("can you check disk space?", "command"), ("please reboot the device", "command"), ("取消我的闹钟", "command"),
    ("cancel my reminder for tomorrow", "command"), ("导出上个月的报表", "command"),
]


@pytest.mark.parametrize("text,kind", CASES)
def test_kind(text, kind):
    assert utterance_kind(normalize(text).text) == kind
