"""The engine's errors as Python exceptions.

Every exception raised by :class:`scratchpad.Scratchpad` is a :class:`ScratchpadError`; its class
says what went wrong (one per variant of the engine's ``Error``), its message says what to do next,
and a few carry the facts a caller branches on (``NotFound.similar``, ``Conflict.current_version``).
"""

from __future__ import annotations

from typing import Any, List, Optional

__all__ = [
    "ScratchpadError",
    "NotFound",
    "InvalidArgument",
    "InvalidName",
    "Conflict",
    "TooLarge",
    "WrongKind",
    "Stopped",
    "ConfigError",
    "StorageError",
    "Raced",
    "IoError",
]


class ScratchpadError(Exception):
    """Base class of every error the scratchpad raises."""

    def __init__(self, message: str, **facts: Any) -> None:
        super().__init__(message)
        self.message = message
        for key, value in facts.items():
            setattr(self, key, value)

    def __str__(self) -> str:
        return self.message


class NotFound(ScratchpadError, LookupError):
    """No entry with that name or id exists in the caller's session."""

    name: str
    session: str
    #: A few names that do exist, closest first.
    similar: List[str]


class InvalidArgument(ScratchpadError, ValueError):
    """Arguments that cannot be honoured: a bad range, a bad regex, a jq syntax error, ..."""


class InvalidName(InvalidArgument):
    """A name, session or turn tag breaks the naming rule (the message states the rule)."""

    #: What was named: ``name``, ``session`` or ``turn``.
    what: str
    value: str


class Conflict(ScratchpadError):
    """``if_version`` did not match, the entry exists where it must not, or a lease says no: someone
    else holds it (to acquire, renew or release), or the write's ``lease`` token is stale (a newer
    one was issued since) or was released."""

    name: str
    #: The version the write expected (``None`` when it asked to create the entry, or for leases).
    expected_version: Optional[int]
    #: The entry's version now (``None`` when it does not exist, or for leases).
    current_version: Optional[int]
    #: Leases: who holds or last held the lease.
    holder: Optional[str] = None
    #: Leases: the token of the latest claim.
    lease_token: Optional[int] = None
    #: A refused write or renewal: the lease token it carried.
    stale_token: Optional[int] = None


class TooLarge(ScratchpadError):
    """The request would produce or store more than a limit allows."""


class WrongKind(ScratchpadError):
    """A text read of a binary entry, a jq query on text that is not JSON, and the like."""


class Stopped(ScratchpadError):
    """A read was stopped before it finished: past its deadline."""


class ConfigError(ScratchpadError):
    """The store URL or the configuration is unusable."""


class StorageError(ScratchpadError):
    """The database said no. The store URL is never part of the message."""


class Raced(ScratchpadError):
    """The entry changed while it was read; reading it again gives a whole version."""

    name: str


class IoError(ScratchpadError, OSError):
    """Reading the input failed (e.g. the file given to ``put``)."""
