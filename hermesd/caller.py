"""Who is calling: the peer identity every layer may know without knowing the socket."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Caller"]


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is on the other end of a connection, from ``SO_PEERCRED``.

    :param uid: peer user id. :param gid: peer primary group id.
    :param pid: peer process id. :param role: ``admin`` or ``user`` (config ``roles``).
    """

    uid: int
    gid: int
    pid: int
    role: str
