"""The story loader: valid files become typed stories; every mistake is reported with file:line.

Pure (no daemon). Also checks the shipped stories themselves: they load, there are at least 150,
about half in each language, and every class of issue 11 (§2–§5 and bad input) has a story in zh
and one in en.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from hermesd.stories import DEFAULT_CLOCK, StoryError, load_paths, load_text
from hermesd.stories.loader import discover

STORIES = Path(__file__).resolve().parent

GOOD = """\
- name: a send and a yes
  locale: zh
  at: 2030-07-01T09:00:00+08:00
  covers: [affirm]
  setup:
    documents: [报价单Q-2024-061.pdf]
  turns:
    - user: 把报价单发给李经理
      intent: doc.send
      state: CONFIRMING
      card_fields: {recipient: 李娜}
      tools: [find_document]
    - user: yes
      at: +1d
      tools: {set: [send_document]}
      reply_contains: 李娜
      reply_not_contains: [true, false]
      decision: [resume]
- name: answers and clocks
  turns:
    - user: 2
      intent: null
      session: b
      new_session: true
    - answer: {choice: 2}
      at: now-2m
      wait: timeout
    - answer: {accept: false}
      card_choices: [张强, 张伟]
"""


def test_a_valid_file_becomes_typed_stories():
    first, second = load_text(GOOD, "good.yaml")
    assert (first.name, first.locale, first.where) == ("a send and a yes", "zh", "good.yaml:1")
    assert first.clock == datetime.fromisoformat("2030-07-01T09:00:00+08:00")
    assert first.documents == (("报价单Q-2024-061.pdf", "%PDF-1.4 story fixture\n"),)
    t1, t2 = first.turns
    assert (t1.user, t1.line, t1.session) == ("把报价单发给李经理", 8, "main")
    assert t1.expect.intent == ("doc.send",) and t1.expect.state == ("CONFIRMING",)
    assert t1.expect.card_fields == (("recipient", "李娜"),) and t1.expect.tools == ("find_document",)
    assert t2.user == "yes"  # not the YAML 1.1 boolean
    assert t2.expect.tools_any_order and t2.expect.tools == ("send_document",)
    assert t2.expect.reply_not_contains == ("true", "false")  # the words, not booleans
    assert t2.at.resolve(first.clock, datetime.now()) == first.clock + timedelta(days=1)
    assert not first.exclusive
    a, b, c = second.turns
    assert a.user == "2" and a.expect.intent == (None,) and (a.session, a.new_session) == ("b", True)
    assert b.choice == 2 and b.wait_timeout and b.at.from_now and b.at.offset == timedelta(minutes=-2)
    assert c.accept is False and c.expect.card_choices == ("张强", "张伟")
    assert second.exclusive  # a wait: played alone
    assert second.clock == DEFAULT_CLOCK and second.locale is None


def test_a_single_mapping_is_one_story():
    (s,) = load_text("name: one\nturns:\n  - user: hi\n", "one.yaml")
    assert s.name == "one" and s.turns[0].said == "hi"


def _problems(text: str) -> list[str]:
    with pytest.raises(StoryError) as info:
        load_text(text, "bad.yaml")
    return info.value.problems


def test_every_mistake_is_reported_with_file_and_line():
    problems = _problems("""\
- name: x
  locale: fr
  turns:
    - user: hi
      stat: LISTENING
      tools: send_document
    - answer: {accept: yes}
    - user: a
      answer: {choice: 1}
    - user: b
      at: tomorrow
      card_choices: many
      wait: forever
      error: not a code
- name: y
  turns: []
""")
    assert problems == [
        "bad.yaml:2: locale: expected zh or en, got 'fr'",
        "bad.yaml:5: unknown turn key 'stat'; did you mean 'state'?",
        "bad.yaml:6: tools: expected a list of tool names (in order) or {set: [...]}, got 'send_document'",
        "bad.yaml:7: answer: expected {accept: true|false} or {choice: n} (1-based), got {'accept': 'yes'}",
        "bad.yaml:8: a turn needs exactly one of user: (text) or answer: ({accept: true} / {choice: 2}), "
        "got user and answer",
        "bad.yaml:11: at: expected ISO 8601 with a UTC offset (2030-06-19T10:00:00+08:00), got 'tomorrow'",
        "bad.yaml:12: card_choices: expected a count or a list of display names, got 'many'",
        "bad.yaml:13: wait: expected seconds (0–600) or 'timeout', got 'forever'",
        "bad.yaml:14: error: expected a stable code such as INPUT_INVALID, got 'not a code'",
        "bad.yaml:16: a story needs turns: (a non-empty list)",
    ]


def test_unknown_story_and_setup_keys_say_what_is_known():
    problems = _problems("- name: x\n  turn: []\n  setup: {docs: [a.pdf]}\n")
    assert "bad.yaml:2: unknown story key 'turn'; did you mean 'turns'?" in problems
    assert "bad.yaml:3: unknown setup key 'docs'; did you mean 'documents'?" in problems
    assert "bad.yaml:1: a story needs turns: (a non-empty list)" in problems


def test_duplicate_keys_and_broken_yaml_point_at_the_line():
    assert _problems("- name: x\n  turns:\n    - user: a\n      user: b\n") == [
        "bad.yaml:4: not valid YAML: duplicate key 'user' (first at line 3)"]
    assert _problems("- name: x\n  turns: [\n")[0].startswith("bad.yaml:3: not valid YAML")
    assert _problems("")[0] == "bad.yaml:1: empty file (expected a list of stories)"
    assert _problems("just text")[0].startswith("bad.yaml:1: expected a list of stories")


def test_names_must_be_unique_and_documents_agree_across_files(tmp_path):
    (tmp_path / "a.yaml").write_text("- name: same\n  setup: {documents: {x.pdf: one}}\n  turns: [{user: hi}]\n")
    (tmp_path / "b.yaml").write_text("- name: same\n  setup: {documents: {x.pdf: two}}\n  turns: [{user: hi}]\n")
    with pytest.raises(StoryError) as info:
        load_paths([tmp_path])
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    assert info.value.problems == [f"{b}:1: story name 'same' is already used at {a}:1",
                                   f"{b}:1: document 'x.pdf' has other content at {a}:1"]


def test_discover_reports_missing_paths_and_empty_folders(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(StoryError) as info:
        discover([tmp_path / "empty", tmp_path / "nope.yaml"])
    assert info.value.problems == [f"{tmp_path / 'empty'}:0: no *.yaml story files in this folder",
                                   f"{tmp_path / 'nope.yaml'}:0: no such file or folder"]


def test_a_restart_makes_a_story_exclusive():
    (s,) = load_text("- name: r\n  turns:\n    - user: hi\n      restart: true\n", "r.yaml")
    assert s.exclusive and s.needs_restart


def test_clear_reminders_is_a_setup_that_makes_a_story_exclusive():
    (s,) = load_text("- name: r\n  setup: {clear_reminders: true}\n  turns: [{user: hi}]\n", "r.yaml")
    assert s.clear_reminders and s.exclusive and s.documents == ()
    (s,) = load_text("- name: r\n  setup: {documents: [a.pdf], clear_reminders: false}\n  turns: [{user: hi}]\n")
    assert not s.clear_reminders and not s.exclusive and [n for n, _ in s.documents] == ["a.pdf"]
    (s,) = load_text("- name: r\n  turns: [{user: hi}]\n")
    assert not s.clear_reminders
    assert _problems("- name: r\n  setup: {clear_reminders: yes}\n  turns: [{user: hi}]\n") == [
        "bad.yaml:2: clear_reminders: expected true or false, got 'yes'"]
    assert "bad.yaml:2: unknown setup key 'clear_reminder'; did you mean 'clear_reminders'?" in _problems(
        "- name: r\n  setup: {clear_reminder: true}\n  turns: [{user: hi}]\n")


# --------------------------------------------------------------------------- the shipped stories

#: the classes of issue 11 §2–§5 and "Bad input" every language must have a story for
CLASSES = (
    # §2 understanding an answer
    "affirm", "deny", "polite_opener", "hedge", "choose", "ordinal", "number", "attribute", "alias", "name",
    "correct", "cancel", "repeat", "help", "unreadable_answer",
    # §3 repairs
    "digression", "session_anchor", "restart", "several_requests", "nothing_open", "smalltalk", "capabilities",
    # §4 reminders and time scopes
    "reminder_text", "date_only", "list_lines", "cancel_that", "fired", "time_scope", "impossible_date", "export",
    # §5 replies
    "reply_words", "failure_sentence",
    # bad input
    "emoji", "mixed", "traditional", "fullwidth", "long_answer", "expired", "other_session", "retry",
)


def test_the_shipped_stories_load_and_cover_every_class_in_both_languages():
    stories = load_paths([STORIES])
    assert len(stories) >= 150
    zh = [s for s in stories if s.locale == "zh"]
    en = [s for s in stories if s.locale == "en"]
    detected = [s for s in stories if s.locale is None]  # the daemon detects the language (a few on purpose)
    assert len(zh) + len(en) + len(detected) == len(stories) and len(detected) <= 5
    assert abs(len(zh) - len(en)) <= len(stories) // 5
    for lang, group in (("zh", zh), ("en", en)):
        covered = {c for s in group for c in s.covers}
        missing = [c for c in CLASSES if c not in covered]
        assert not missing, f"no {lang} story covers {missing}"
    files = {Path(s.file).name for s in stories}
    assert {"confirmations.yaml", "choices.yaml", "asks.yaml", "digressions.yaml", "corrections.yaml",
            "anchors.yaml", "multi_requests.yaml", "smalltalk.yaml", "nothing_open.yaml", "reminders.yaml",
            "time_scopes.yaml", "replies.yaml", "bad_input.yaml", "device.yaml", "documents.yaml"} <= files


def test_reply_cased_holds_the_letter_case_the_others_fold(tmp_path):
    from hermesd.stories.checks import _text
    from hermesd.stories.model import Expect

    p = tmp_path / "cased.yaml"
    p.write_text("- name: cased\n  locale: en\n  turns:\n    - user: Yesterday, what did I send?\n"
                 "      reply_cased: sent yesterday\n", encoding="utf-8")
    (story,) = load_paths([p])
    assert story.turns[0].expect.reply_cased == ("sent yesterday",)
    e = Expect(reply_cased=("sent yesterday",), reply_contains=("sent yesterday",))
    assert _text(e, "Nothing was sent yesterday.") == []
    said = _text(e, "Nothing was sent Yesterday.")
    assert len(said) == 1 and said[0].startswith("reply_cased:")  # reply_contains folds the case: no complaint
