"""The dialogue manager: open questions, how an answer reads, what follows (pure; no I/O).

- :mod:`.questions`: the typed open questions a session holds (Ask, Confirm, Choice, Offer);
- :mod:`.heard`: one utterance as the dialogue manager sees it, and its :class:`~.heard.Reading`;
- :mod:`.lexicon`, :mod:`.words`, :mod:`.scan`, :mod:`.reader`: answer words (zh Simplified and
  Traditional, en; packs extend them), clause scanning, and the reader that turns an utterance
  into a reading;
- :mod:`.split`: several requests in one utterance, cut at conjunctions;
- :mod:`.policy`: (open question, heard, reading) → one typed decision the controller carries out;
- :mod:`.catalogue`, :mod:`.smalltalk`: every sentence the dialogue manager says itself, zh and en,
  and the capability list generated from the loaded packs.

The I/O shell that carries decisions out is :mod:`hermesd.session.pipeline`.
"""
