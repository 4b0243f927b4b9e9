"""h11's server side, reading what it refused or misread the way the httptools protocol
reads it (service.api.protocol): the connection ProblemH11Protocol parses with."""

from __future__ import annotations

from typing import Any

import h11

from service.api.heads import head_fields, head_version
from service.api.refusals import Refusal, bad_request_body, refusal
from service.api.targets import origin_form, target_fault, with_host


class Connection(h11.Connection):
    """h11's server side, reading what it refused or misread the way httptools reads it:
    the empty lines before a request line are skipped (RFC 9112 2.2: a server should;
    h11 answered a stray CRLF between requests with a 400), and an absolute-form target
    is its path (service.api.targets)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused: Refusal | None = None  # a request refused, its answer

    def next_event(self) -> Any:
        head = b""
        if self.their_state is h11.IDLE:
            # (h11's buffer, private: it has no public way to drop bytes it holds. The
            # blank lines of a pipeline wait there, read at once with the request before.)
            data = self._receive_buffer._data
            blank = 0
            while blank < len(data) and data[blank] in b"\r\n":
                blank += 1
            if blank:
                self._receive_buffer.maybe_extract_at_most(blank)
            head = bytes(data[: data.find(b"\n\r\n") + 1])  # (h11 takes it from the buffer)
        try:
            event = super().next_event()
        except h11.RemoteProtocolError:
            # h11 refuses every transfer coding but chunked, with a 400: where chunked is
            # the last (else it is a 400: RFC 9112 6.3), the codings it names are read from
            # the head, for a 501; and its Host fields, which come first (a 400).
            self.refused = refusal(head_fields(head), b"", version=head_version(head))
            raise
        if isinstance(event, h11.Request) and _framed_twice(event):
            # Content-Length and Transfer-Encoding both: h11 read the body as chunked and
            # kept the connection, RFC 9112 6.1 has it closed after the answer (a body
            # framed two ways smuggles a request past a proxy reading the other). A 400,
            # as httptools answers it.
            raise h11.RemoteProtocolError("both Content-Length and Transfer-Encoding")
        if isinstance(event, h11.Request) and (
            refused := refusal(event.headers, b"", event.method, event.http_version)
        ):
            # A Host that is no host[:port] (h11 refuses none or two), a 400; a method the
            # server does not know (h11 takes any token: the app's 405, or 404), a 501;
            # the connection closed, as the httptools protocol answers them.
            self.refused = refused
            raise h11.RemoteProtocolError(refused.reason.decode())
        if isinstance(event, h11.Request) and (fault := target_fault(event.target)):
            self.refused = Refusal(400, b"Bad Request", bad_request_body(fault))
            raise h11.RemoteProtocolError(fault)
        if isinstance(event, h11.Request) and (origin := origin_form(event.target)):
            authority, target = origin
            event = h11.Request(
                method=event.method,
                target=target,
                headers=with_host(event.headers, authority),
                http_version=event.http_version,
            )
        return event


def _framed_twice(event: h11.Request) -> bool:
    names = {name for name, _ in event.headers}
    return b"content-length" in names and b"transfer-encoding" in names


def holds_nothing(conn: h11.Connection) -> bool:
    """Whether no byte waits in ``conn``'s buffer (a head begun in an earlier read)."""
    return not conn._receive_buffer
