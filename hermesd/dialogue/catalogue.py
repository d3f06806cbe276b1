"""Every sentence the dialogue manager says itself, in zh and en (rules and tools bring their own).

:func:`say` picks the language; a key missing from the catalogue is a bug and
raises ``KeyError`` (the catalogue test checks that every key has both languages
and that every placeholder is filled).
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["TEXTS", "ToolWords", "failure", "say"]

TEXTS: dict[str, dict[str, str]] = {
    "cancelled": {"zh": "好的，已取消。", "en": "OK, cancelled."},
    "last_done": {"zh": "刚才（{at}）：{what}如果有错，告诉我应该是什么（比如另一个人），我重新来。",
                  "en": "Just now ({at}): {what} If that was wrong, tell me what it should have been (another person, say) and I will do it again."},
    "not_doing": {"zh": "好的，不做。要做的时候再告诉我。", "en": "OK, I won't. Tell me when you want it done."},
    # {at}: when that turn ran, HH:MM in the session's zone ("when did I last restart nginx" asks it)
    "asked_done_last": {"zh": "我这里最近的记录是（{at}）：{what}", "en": "The latest I have on that (at {at}): {what}"},
    "asked_done_none": {"zh": "我这里没有“{what}”的记录，现在也没有执行。要做的话请直接说。",
                        "en": "I have no record of that ({what}), and I did not do it now. Tell me if you want it done."},
    "asked_how": {"zh": "我讲不了操作步骤。要我直接做，请说“{req}”。",
                  "en": "I can't walk you through it. If you want me to do it, say \"{req}\"."},
    # a state request about another device, or asking what to do (hermesd.dialogue.otherdevice): {req} how to
    # ask for this device's state, {what} the other device as said
    "other_device": {"zh": "我只能查看这台设备本身，查不了{what}，所以什么都没有做。要查这台设备，可以说“{req}”。",
                     "en": "I can only check this device itself, not a {what}, so I did nothing. To check this device, "
                           "say \"{req}\"."},
    "device_what_to_do": {"zh": "该怎么处理我给不了建议。我能做的是查看这台设备的状态，比如说“{req}”。",
                          "en": "I can't advise on what to do. What I can do is show this device's status: say \"{req}\", "
                                "for example."},
    "nothing_done": {"zh": "这个会话里我还没有做过什么。", "en": "I have not done anything in this conversation yet."},
    "one_by_one": {"zh": "一次只能处理一个人：先是{first}，然后是{rest}。",
                   "en": "I can do this for one person at a time: first {first}, then {rest}."},
    "one_by_one_thing": {"zh": "一次只能处理一份：先是{first}，然后是{rest}。",
                         "en": "I can do this for one at a time: first {first}, then {rest}."},
    "one_by_one_each": {"zh": "一次只能处理一个：先是{first}，然后是{rest}。",
                        "en": "I can do this for one at a time: first {first}, then {rest}."},
    "statement_done": {"zh": "好的，知道了。我这边什么都没有做；需要我做什么请直接说。",
                       "en": "OK, noted. I have not done anything; tell me if you want me to do something."},
    "statement_state": {"zh": "明白了。我什么都没有做；需要我做什么请直接说。",
                        "en": "I see. I have not done anything; tell me if you want me to do something."},
    "ask_dropped": {"zh": "我还是没听懂，这件事先放下了，什么都没有做。需要的话请换个说法再说一遍。",
                    "en": "I still did not understand, so I have set that aside; nothing was done. Say it again in other words if you still need it."},
    "not_a_document": {"zh": "我只能发送文件；“{what}”不是文件，什么都没有发。",
                       "en": "I can only send documents; \"{what}\" is not one, so nothing was sent."},
    "requests_over": {"zh": "这条消息里的请求太多：我只做了前{n}个，其余{rest}个没有做。需要的话请分开再说。",
                      "en": "That message held too many requests: I did the first {n}; the other {rest} were not done. Send them separately if you need them."},
    "requests_repeated": {"zh": "重复的请求只做了一次。", "en": "A request said more than once was done once."},
    # a part of a line that is no request of the packs ("明天天气怎么样" beside "现在几点"): said, not guessed at
    "part_not_done": {"zh": "“{part}”这部分我帮不上忙，它不在我能做的事情里，没有执行。",
                      "en": "I can't help with \"{part}\": it is not one of the things I can do, so that part was not done."},
    "did_you_mean": {"zh": "没有“{m}”这种文件。是说{opts}吗？现在什么都还没做。",
                     "en": "I don't know \"{m}\". Did you mean {opts}? Nothing was done yet."},
    "declined": {"zh": "好的，已取消，什么都没有执行。", "en": "OK, cancelled; nothing was done."},
    "nothing_to_cancel": {"zh": "好的，现在没有要取消的事。", "en": "OK. There is nothing to cancel right now."},
    "nothing_open": {"zh": "现在没有需要你确认或选择的事。你可以直接告诉我要做什么。",
                     "en": "There is nothing waiting for your answer right now. Just tell me what you need."},
    "expired": {"zh": "刚才的确认（{q}）已经过期，没有执行。需要的话请重新说一遍。",
                "en": "That confirmation ({q}) has expired, so nothing was done. Please ask again if you still need it."},
    "confirm_again": {"zh": "还需要你确认：{q}", "en": "I still need your confirmation: {q}"},
    "ask_again": {"zh": "回到刚才的问题：{q}", "en": "Back to my question: {q}"},
    "choose_again": {"zh": "回到刚才的问题：{q}", "en": "Back to my question: {q}"},
    "expect_yes_no": {"zh": "请回答“是”或“不是”：{q}", "en": "Please answer yes or no: {q}"},
    "expect_choice": {"zh": "请说编号或名字：{q}", "en": "Please say a number or a name: {q}"},
    "choose_not_that": {"zh": "好的，还没选。请说编号或名字，都不是就说“取消”：{q}",
                        "en": "All right, nothing is chosen yet. Say a number or a name, or \"cancel\" if it is none of them: {q}"},
    "expect_slot": {"zh": "没听清。{q}", "en": "Sorry, I did not catch that. {q}"},
    "person_not_known": {"zh": "我不认识“{who}”，通讯录里没有这个人，所以什么都没做。",
                         "en": "I don't know anyone called \"{who}\": they are not in the directory, so nothing was done."},
    "person_did_you_mean": {"zh": "我不认识“{m}”，通讯录里没有这个人。你是说：{opts}？",
                            "en": "I don't know anyone called \"{m}\". Did you mean: {opts}?"},
    "person_closest": {"zh": "我认识的人里最接近的是{names}。如果说的是其中一位，请用这个名字再说一次。",
                       "en": "The closest names I know are {names}. If you meant one of them, say it again with that name."},
    "wait": {"zh": "好的，不着急。想好了告诉我：{q}", "en": "Sure, take your time. Tell me when you are ready: {q}"},
    "repeat": {"zh": "{q}", "en": "{q}"},
    "help_yes_no": {"zh": "你可以说“好的”确认，“不用了”取消。{q}",
                    "en": "Say \"yes\" to go ahead or \"no\" to cancel. {q}"},
    "help_choice": {"zh": "可选的有：{opts}。说编号（比如“第一个”）或名字都可以，说“取消”就不选了。",
                    "en": "The choices are: {opts}. Say a number (\"the first one\") or a name, or \"cancel\"."},
    "help_slot": {"zh": "{q}（说“取消”可以放弃）", "en": "{q} (say \"cancel\" to stop)"},
    "choose": {"zh": "你说的{m}是哪一位？{opts}", "en": "Which {m} do you mean? {opts}"},
    "failed": {"zh": "这一步没有成功，请稍后再试。", "en": "That step did not work. Please try again later."},
    "handoff": {"zh": "我已经请同事来处理。", "en": "I have asked a colleague to take over."},
    "handoff_asked": {"zh": "好的，我已经请同事来接手，请稍等。",
                      "en": "OK, I have asked a colleague to take over; please wait a moment."},
    "offer": {"zh": "上次“{what}”还没做完，要接着做吗？",
              "en": "Last time, \"{what}\" was left unfinished. Shall I carry on with it?"},
    # said after the answer to something else (an offer never comes before, or instead of, that answer)
    "offer_after": {"zh": "另外，上次“{what}”还没做完，要接着做吗？",
                    "en": "Also, last time \"{what}\" was left unfinished. Shall I carry on with it?"},
    "offer_later": {"zh": "好的，先放着，下次再问你。", "en": "OK, I will keep it for later."},
    "auth": {"zh": "请先完成身份验证。", "en": "Please verify your identity first."},
    "interrupted": {"zh": "上次的操作被中断了，没有重复执行。", "en": "The last action was interrupted and was not repeated."},
    "smalltalk_greeting": {"zh": "你好！我是 hermesd，有什么可以帮你？", "en": "Hello! I am hermesd. What can I do for you?"},
    "smalltalk_thanks": {"zh": "不客气，还有别的需要吗？", "en": "You're welcome. Anything else?"},
    "smalltalk_goodbye": {"zh": "再见，有事随时找我。", "en": "Goodbye. I am here whenever you need me."},
    "smalltalk_identity": {"zh": "我是 hermesd，这台设备上的助手，不联网也能用。",
                           "en": "I am hermesd, the assistant on this device; I work offline."},
    "smalltalk_wellbeing": {"zh": "我很好，谢谢关心！有什么可以帮你？", "en": "I'm fine, thank you for asking. What can I do for you?"},
    "smalltalk_reassurance": {"zh": "好的。需要我做什么的时候告诉我。", "en": "OK. Tell me when there is something I can do."},
    "smalltalk_quiet": {"zh": "好的，我不说了。需要的时候再叫我。", "en": "OK, I'll be quiet. I'm here when you need me."},
    "capabilities_head": {"zh": "我可以帮你：", "en": "I can help with:"},
    "capabilities_memory_title": {"zh": "记忆", "en": "Memory"},
    "capabilities_memory": {"zh": "记住你告诉我的事、需要时说给你听、按你说的忘掉",
                            "en": "remember what you tell me, tell it back when you ask, forget it when you say so"},
    "capabilities_none": {"zh": "现在没有加载任何功能包。", "en": "No skill packs are loaded right now."},
    "interrupted_offer": {"zh": "上次的“{what}”执行到一半被中断了，没有完成，也没有重复执行。要重新执行吗？",
                          "en": "Last time, \"{what}\" was interrupted before it finished and was not repeated. "
                                "Run it again?"},
    "not_understood": {"zh": "抱歉，我没听明白。可以换个说法吗？", "en": "Sorry, I did not understand. Could you put it another way?"},
    # ROUTING ran past its budget (session.routing_ms): the fallback path, said as what it is - never
    # "be more specific" for a request that was clear
    "busy": {"zh": "我这会儿太忙，没来得及处理这句话，什么都没有执行。请稍后再说一次。",
             "en": "I'm too busy to handle that right now, so nothing was done. Please say it again in a moment."},
    "out_of_scope": {"zh": "这个我帮不上忙，它不在我能做的事情里。想知道我能做什么，可以问“你能做什么”。",
                     "en": "I can't help with that; it is not one of the things I can do. Ask \"what can you do?\" to see what I can."},
    "distress": {"zh": "听到你这么说，我很担心你。这件事我帮不上忙，但有人可以：请告诉身边信任的人，"
                       "或拨打当地的心理援助热线；如果有危险，请马上拨打急救电话。",
                 "en": "I'm worried to hear that. I can't help with this myself, but people can: please tell someone "
                       "you trust, or call a local crisis line; if you are in danger, call emergency services now."},
    # a fire or smoke reported (hermesd.dialogue.emergency): safety first, and a person is told (handoff event)
    "emergency": {"zh": "如果有起火或冒烟，请马上离开并拨打 119（消防）；只有在安全的情况下才去切断电源，不要用水去浇电器。"
                        "我已经通知同事来处理。",
                  "en": "If there is fire or smoke, get away from it and call the fire service now (119 in China, 911 in "
                        "the US, 112 in Europe); cut the power only if it is safe, and never put water on electrics. "
                        "I have alerted a colleague."},
    # explicit memory (hermesd.session.memoryturn): {s} the subject as the user's ("你家的门禁密码" / "your locker code")
    "mem_stored": {"zh": "好的，记住了：{s}{rel}{v}。", "en": "OK, I will remember that {s}{rel}{v}."},
    "mem_updated": {"zh": "好的，已更新：{s}{rel}{v}（之前是“{old}”）。",
                    "en": "OK, updated: {s}{rel}{v} (it was \"{old}\" before)."},
    "mem_same": {"zh": "这个我已经记着了：{s}{rel}{v}。", "en": "I already have that: {s}{rel}{v}."},
    "mem_note": {"zh": "好的，记下了：{v}。", "en": "OK, noted: {v}."},
    "mem_secret": {"zh": "好的，记下了{s}这件事，但出于安全，{s}本身没有明文保存。",
                   "en": "OK, I noted {s}, but for safety {s} itself is not kept in the clear."},
    "mem_truncated": {"zh": "内容太长，我只记下了前{n}个字。", "en": "That was long, so I kept only the first {n} characters."},
    "mem_recall": {"zh": "你{when}说过：{s}{rel}{v}。", "en": "You told me {when}: {s}{rel}{v}."},
    "mem_recall_changed": {"zh": "你{when}改过：{s}{rel}{v}。", "en": "You changed it {when}: {s}{rel}{v}."},
    # a list of what was told ("你记得我什么"): {items} the facts, newest first; {s} whose ("你老婆")
    "mem_list": {"zh": "你告诉过我：{items}。", "en": "You have told me: {items}."},
    "mem_list_about": {"zh": "关于{s}，你告诉过我：{items}。", "en": "About {s}, you have told me: {items}."},
    "mem_list_none_about": {"zh": "你没有告诉过我关于{s}的事。", "en": "You have not told me anything about {s}."},
    "mem_list_more": {"zh": "；还有{n}件", "en": "; and {n} more"},
    "mem_list_secret": {"zh": "{s}（没有明文保存）", "en": "{s} (not kept in the clear)"},
    "mem_recall_secret": {"zh": "你{when}告诉过我{s}，但它没有明文保存，我说不出来。",
                          "en": "You told me {when} about {s}, but it was not kept in the clear, so I cannot say it."},
    "mem_stored_hidden": {"zh": "好的，记住了{s}。它的内容你的角色不能查看，所以我不复述。",
                          "en": "OK, I will remember {s}; its content is not shown to your role, so I will not repeat it."},
    "mem_restricted": {"zh": "{s}我记着，但你的角色不能查看。", "en": "I have {s}, but your role may not see it."},
    "mem_unknown": {"zh": "你没有告诉过我{s}。", "en": "You have not told me {s}."},
    # {s}: zh the thing (你的车), en the clause (where your car is)
    "mem_unknown_at": {"zh": "我不知道：你没有告诉过我{s}在哪里。", "en": "I don't know: you have not told me {s}."},
    "mem_forget_q": {"zh": "要忘掉“{s}{rel}{v}”吗？", "en": "Forget that {s}{rel}{v}?"},
    # {what}: exactly what goes, counted when asked (memoryturn._erasure_list)
    "mem_forget_all_q": {"zh": "要忘掉关于你的所有记忆吗？会删除：{what}。这不能撤销。",
                         "en": "Forget everything I remember about you? That erases {what}. This cannot be undone."},
    "mem_forget_sent_q": {"zh": "要删除你的发送记录吗？会删除：{what}。你让我记住的事不受影响。这不能撤销。",
                          "en": "Delete your send history? That erases {what}. What you asked me to remember stays. "
                                "This cannot be undone."},
    "mem_forget_history_q": {"zh": "要删除你的操作记录吗？会删除：{what}。你让我记住的事不受影响。这不能撤销。",
                             "en": "Delete your history? That erases {what}. What you asked me to remember stays. "
                                   "This cannot be undone."},
    "mem_forgot_list": {"zh": "好的，已删除：{what}。", "en": "Done, I have erased {what}."},
    "mem_no_sent": {"zh": "你还没有发送记录，没有要删除的。", "en": "You have no send history, so there is nothing to delete."},
    "mem_no_history": {"zh": "你还没有操作记录，没有要删除的。", "en": "You have no history, so there is nothing to delete."},
    "mem_forgot": {"zh": "好的，已经忘掉了：{s}{rel}{v}。", "en": "Done, I have forgotten that {s}{rel}{v}."},
    "mem_forget_none": {"zh": "我本来就没有记着{s}。", "en": "I had nothing stored about {s}."},
    # {v}: a told clause said back ("你喜欢喝咖啡" / "you like coffee"): nothing told of it was kept
    "mem_forget_none_that": {"zh": "我本来就没有记着{v}。", "en": "I had not kept that {v}, so there is nothing to forget."},
    "mem_nothing": {"zh": "我没有记着关于你的任何事情。", "en": "I do not remember anything about you."},
    # references (hermesd.session.references): {noun} the type noun as said (订单, order), {when} the time phrase
    "ref_none": {"zh": "这个会话里还没有提到过{noun}。", "en": "No {noun} has come up in this conversation yet."},
    "ref_none_when": {"zh": "{when}没有找到{noun}的记录。", "en": "I found no {noun} from {when}."},
    # a pronoun with two or more people in play: {said} the pronoun (他, her), {people} "张伟还是李娜"
    "ref_which_person": {"zh": "你说的“{said}”是{people}？", "en": "By \u201c{said}\u201d, do you mean {people}?"},
    "ref_none_same": {"zh": "这个会话里还没有提到过可以指代的东西。",
                      "en": "Nothing has come up in this conversation yet that this could refer to."},
    # failures (see failure()): {what} / {What} name the step — the tool's subject or 这一步 / this step
    "fail.INPUT_INVALID": {"zh": "{what}缺少信息，或者信息的格式不对，所以没有执行。请换个说法，说得具体一点再试。",
                           "en": "{What} was missing some details, or they were not in a form I can use, so nothing was done. "
                                 "Please say it again with a bit more detail."},
    "fail.OUTPUT_INVALID": {"zh": "{what}返回的结果有问题，我没有采用。请稍后再试；如果还不行，请联系管理员。",
                            "en": "{What} gave a result I could not use. Please try again later, and tell an administrator "
                                  "if it keeps happening."},
    "fail.TOOL_TIMEOUT": {"zh": "{what}超时了，请稍后再试。",
                          "en": "{What} took too long to answer; please try again in a minute."},
    "fail.TOOL_OOM": {"zh": "{what}用的内存超出了限制，没有完成。请把范围缩小一些再试。",
                      "en": "{What} ran out of memory and did not finish; please ask for less at once and try again."},
    "fail.TOOL_CRASHED": {"zh": "{what}意外中断了，没有完成。请再试一次；如果还不行，请联系管理员。",
                          "en": "{What} stopped unexpectedly and did not finish. Please try again, and tell an "
                                "administrator if it keeps happening."},
    "fail.TOOL_UNAVAILABLE": {"zh": "{what}暂时用不了，请过几分钟再试。",
                              "en": "{What} is not available right now; please try again in a few minutes."},
    "fail.TOOL_UNHEALTHY": {"zh": "{what}目前有故障，暂时不能用，请联系管理员。",
                            "en": "{What} is out of order at the moment; please tell an administrator."},
    "fail.TOOL_NOT_FOUND": {"zh": "这台设备上没有做这件事的工具，请联系管理员。",
                            "en": "This device has no tool for that; please ask an administrator."},
    "fail.PERMISSION_DENIED": {"zh": "你没有权限做这件事；需要的话请联系管理员。",
                               "en": "You do not have permission for that; please ask an administrator if you need it."},
    "fail.RATE_LIMITED": {"zh": "现在请求太多了，请稍等一会儿再试。",
                          "en": "There are too many requests right now; please wait a moment and try again."},
    "fail.INTERNAL": {"zh": "我这边出了点问题，没有完成。请再试一次；如果还不行，请联系管理员。",
                      "en": "Something went wrong on my side and it was not done. Please try again, and tell an "
                            "administrator if it keeps happening."},
    "fail.INVALID_REQUEST": {"zh": "这个请求的格式不对，没有执行。请检查后再试。",
                             "en": "That request was not in a form I understand, so nothing was done; please check it "
                                   "and try again."},
    "fail.FRAME_TOO_LARGE": {"zh": "这条消息太长了，请分成几条发送。",
                             "en": "That message is too long; please send it in smaller parts."},
    "fail.SESSION_NOT_FOUND": {"zh": "这个对话已经不存在了，请重新开始。",
                               "en": "This conversation no longer exists; please start a new one."},
    "fail.SESSION_BUSY": {"zh": "我还在处理你上一句话，请稍等一下。",
                          "en": "I am still working on your last message; please wait a moment."},
    "fail.SESSION_EXPIRED": {"zh": "这个对话已经过期了，请重新开始。",
                             "en": "This conversation has expired; please start a new one."},
    "fail.NOT_FOUND": {"zh": "没有找到相关的内容。可以换个说法，或者说得具体一点。",
                       "en": "I could not find anything that matches; try other words or a few more details."},
    "fail.MISSING_FIELD": {"zh": "还缺少一些必要的信息，请补充后再试。",
                           "en": "Some details I need are missing; please add them and try again."},
    "fail.AMBIGUOUS": {"zh": "符合的不止一个，请说得具体一点（比如时间或名称）。",
                       "en": "More than one matches; please be more specific (a time or a name)."},
    "fail.other": {"zh": "{what}没有成功。请稍后再试；如果还不行，请联系管理员。",
                   "en": "{What} did not work. Please try again later, and tell an administrator if it keeps happening."},
}

#: how a failure sentence names the step when no tool subject is known.
_STEP = {"zh": "这一步", "en": "this step"}


class ToolWords(Protocol):
    """What :func:`failure` asks of a tool (a :class:`~hermesd.tools.descriptor.Descriptor` has both)."""

    def subject_text(self, lang: str) -> str | None: ...

    def error_text(self, code: str, lang: str) -> str | None: ...


def say(key: str, lang: str, **kw: Any) -> str:
    """The sentence ``key`` in ``lang`` (``zh``; anything else is English), placeholders filled from ``kw``.

    :raises KeyError: unknown key, or a placeholder not given.
    """
    return TEXTS[key]["zh" if lang == "zh" else "en"].format(**kw)


def failure(code: str, lang: str, *, tool: str | ToolWords | None = None) -> str:
    """One sentence for a failed step that says what to do next; never the code itself.

    :param code: the stable code of :mod:`hermesd.errors` (``TOOL_TIMEOUT`` …), a tool fault code,
        or a tool's own business code (``NOT_FOUND``, ``MISSING_FIELD``, ``DOCUMENT_NOT_FOUND`` …).
    :param lang: ``zh``; anything else is English.
    :param tool: the failed step's tool. Its descriptor (anything with ``subject_text(lang)`` and
        ``error_text(code, lang)``) gives the tool's own sentence for a business code and names
        the tool in the others ("网络检查超时了，请稍后再试。"); a bare tool name, or None, says
        这一步 / "this step". An unknown code gets a general sentence.
    :return: the sentence; the code belongs in the structured reply and the trace, not here.
    """
    lang = "zh" if lang == "zh" else "en"
    words = None if tool is None or isinstance(tool, str) else tool
    if words is not None:
        own = words.error_text(code, lang)
        if own:
            return own
    what = (words.subject_text(lang) if words is not None else None) or _STEP[lang]
    key = f"fail.{code}" if f"fail.{code}" in TEXTS else "fail.other"
    return TEXTS[key][lang].format(what=what, What=what[:1].upper() + what[1:])
