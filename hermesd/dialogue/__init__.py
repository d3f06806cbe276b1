"""The dialogue manager: open questions, how an answer reads, what follows (pure; no I/O).

- :mod:`.questions`: the typed open questions a session holds (Ask, Confirm, Choice, Offer);
- :mod:`.heard`: one utterance as the dialogue manager sees it, and its :class:`~.heard.Reading`;
- :mod:`.lexicon`, :mod:`.reader`: answer words (zh Simplified/Traditional, en; packs extend them)
  and the reader that turns an utterance into a reading;
- :mod:`.policy`: (open question, heard, reading) → one typed decision the controller carries out;
- :mod:`.catalogue`: every sentence the dialogue manager says itself, zh and en.
"""
