"""negated_request: a request said in the negative, table-tested (zh and en)."""

from __future__ import annotations

import pytest

from hermesd.dialogue.negated import negated_request

NEGATED = ["不要重启nginx", "别查磁盘了", "不用检查网络", "千万别把合同发给王芳", "请不要发给李娜", "你别再重启了",
           "甭查了日志", "不需要导出报表", "別重啟nginx", "don't restart nginx", "do not send the quote to li na",
           "please don't check the disk", "never restart nginx without asking", "no need to check the network",
           "dont send it", "我不想重启nginx", "没必要重启nginx吧", "我不想把报价单发给王芳", "报价单先别发给王芳",
           "王芳说不用发报价单了", "我们暂时别重启了nginx", "i don't want to send the quote to wang fang",
           "we do not need you to restart nginx", "there's no need to restart nginx"]
NOT_NEGATED = ["重启nginx", "别忘了提醒我开会", "不要忘记交报告", "不要紧", "别担心", "别客气", "别着急，慢慢来",
               "不用重启吗？", "不需要重启吗", "不要发给张伟，发给王芳", "不用了", "别", "不要",
               "don't forget to call mom", "don't let me forget to send the tax forms", "别让我忘了交报告", "don't worry", "don't be late", "don't i need to restart it?",
               "restart nginx", "the network doesn't work", "why don't you restart nginx", "不要了。",
               "don't send it to li na, send it to wang fang", "把报价单发给别人", "要不要重启nginx", "把不用的文件清理一下",
               "我不想忘了交报告", "i don't want to forget the meeting", "把别的报价单发给王芳", "我不要紧", "我不想要这个提醒了"]


@pytest.mark.parametrize("text", NEGATED)
def test_a_negative_request(text):
    assert negated_request(text)


@pytest.mark.parametrize("text", NOT_NEGATED)
def test_not_a_negative_request(text):
    assert not negated_request(text)
