"""Conversation tests as stories: YAML turns with what a person expects, played against a live daemon.

``hermesctl test PATH…`` loads every story under the paths (:mod:`.loader`),
plays them over the socket (:mod:`.runner`), checks each reply (:mod:`.checks`)
and prints one line per story, ``N passed, M failed`` and a coverage report
(:mod:`.coverage`, :mod:`.report`). Pack authors use the same command on their packs.

The format
==========

A file holds a list of stories (or one story as a mapping)::

    - name: a deny after a polite opener cancels the send      # unique across the run
      locale: zh                     # optional, passed to session.open (zh | en)
      tz: Asia/Shanghai              # optional, passed to session.open
      at: 2030-06-19T10:00:00+08:00  # optional story clock (default: that instant, a Wednesday)
      covers: [deny, polite_opener]  # optional tags: the classes of behaviour it is written for
      setup:
        documents: [报价单Q-2024-061.pdf]       # or {name: content}; created in <state_dir>/documents
        clear_reminders: true                  # optional: the user's pending reminders cancelled first
      turns:
        - user: 把报价单发给李经理
          state: CONFIRMING
          card_fields: {recipient: 李娜}
        - user: 好的，不过先别发了
          tools: []
          state: LISTENING
          reply_contains: 取消
          decision: cancel

Only ``true``/``false`` are booleans and timestamps stay text: ``user: yes``,
``user: no`` and ``user: 2`` are the words said. Unknown keys are errors with
``file:line`` and a "did you mean".

A turn has one input:

- ``user: TEXT`` (``session.turn``), or ``answer: {accept: true|false}`` / ``answer: {choice: N}``
  (``session.confirm``, N 1-based as the card shows).

How it is played (all optional):

- ``at``: the reference time: ISO 8601 with an offset, ``+1d`` / ``-2h`` / ``+30m`` / ``+1w`` from
  the previous turn, or ``now`` / ``now-2m`` from the wall clock. Default: the previous turn's time.
- ``session: NAME``: play the turn in another session of the story (opened on first use; default ``main``).
- ``new_session: true``: close that session and open a fresh one first.
- ``wait: SECONDS`` or ``wait: timeout`` (until the session's state times out, e.g. a card left
  unanswered; give the test daemon a short ``session.confirming_s``: a story whose session does not
  time out within ``--max-wait`` is skipped, saying so).
- ``restart: true``: restart the daemon first (``--restart-cmd``; otherwise the story is skipped, saying so).
- ``message_id: ID``: sent as the message id (a repeated id must return the stored reply).

A story with a ``wait`` or ``restart`` turn, ``setup: {clear_reminders: true}`` or ``exclusive: true``
is played alone after the others.

Setup (all optional):

- ``documents``: files every story of the run can use (one documents folder serves the run, so
  files must agree on a name's content).
- ``clear_reminders: true``: before the first turn, every pending reminder of the invoking user is
  cancelled through ``tools.call`` of the ``reminder`` tool (listed, then cancelled by id). Every
  story shares that user's reminders; a story that checks what a list shows uses this, and being
  exclusive, no other story adds reminders while it plays.

What the reply must show (all optional; lists of allowed values are any-of):

- ``intent``, ``rule`` (``rule_id``), ``path``, ``state``: a value or a list; ``null`` = none.
- ``tools: [a, b]``: exactly these tools ran this turn, in order (``[]``: none);
  ``tools: {set: [a, b]}`` in any order. ``not_tools: [a]``: none of these ran.
- ``reply_contains`` (str or list, all), ``reply_contains_any`` (list, one), ``reply_not_contains``
  (str or list, none); case-insensitive. ``reply_plain: true``: no JSON brackets, ``true``/``false``/``null``,
  codes (``INPUT_INVALID``), raw seconds (``1523.2 s``) or raw ISO timestamps.
- ``card: true|false``; ``card_choices``: a count or the display names in order;
  ``card_fields: {field: value}``.
- ``act`` (the answer reading, trace ``reading.act``), ``decision`` (reply/trace ``decision``),
  ``repairs: [digression, …]`` (trace ``repairs``): a daemon that does not report them fails the
  expectation saying so.
- ``error: CODE``: the call fails with this stable code. ``offer: true|false``: the session opened
  for this turn offered unfinished work. ``replayed: true``: the stored reply of a repeated ``message_id``.
- ``events: [handoff]``: these kinds of event of the story's session ride on this reply (the daemon
  has no subscriber for the user, so a reply carries them); ``not_events: [handoff]``: none does.

Stories run as the invoking user (its role and memory); a story cannot pick a uid.
"""

from .loader import StoryError, load_file, load_paths, load_text
from .model import DEFAULT_CLOCK, Expect, Story, Turn

__all__ = ["DEFAULT_CLOCK", "Expect", "Story", "StoryError", "Turn", "load_file", "load_paths", "load_text"]
