"""Write to a client's socket when asked, as asyncio's own transports do.

Twisted, under Daphne, never writes when asked: it appends the bytes to a buffer, registers
the socket for writing with the event loop (a system call), writes on the loop's next turn
through its logging wrappers, then unregisters the socket (another system call). A loaded
server sends four messages a move, one to each socket of the match, so that was two system
calls and an extra turn of the loop per message, on the thread every socket shares
(`git show cbfc63d:docs/benchmarks.md`: py-spy on a saturated server). Here a write to a connection with nothing already waiting is tried at
once; whatever the kernel does not take (or a write that fails) goes the usual buffered way,
so order, back-pressure and the handling of lost connections stay Twisted's own.
"""

from __future__ import annotations

from config.patches import Patch, Private, replace


def write_at_once() -> bool:
    """Install the write (once), if Twisted is the one in ``PATCH``; True when it is installed."""
    return PATCH.install()


def _install() -> None:
    from twisted.internet import tcp  # noqa: PLC0415 (Daphne's reactor is installed first)

    buffered = tcp.Connection.write
    if getattr(buffered, "at_once", False):
        return

    def write(self, data: bytes) -> None:
        if (type(data) is bytes and data and self.connected and not self._writeDisconnected
                and not self._tempDataBuffer and self.offset == len(self.dataBuffer)):
            sent = self.writeSomeData(data)
            if type(sent) is int and sent > 0:
                if sent == len(data):
                    return
                data = data[sent:]
        buffered(self, data)

    write.at_once = True
    replace(tcp.Connection, "write", write)


def _twisted(owner: str, name: str, **expected) -> Private:
    return Private(f"twisted.internet.{owner}", name, "config/tcpwrite.py", **expected)


PATCH = Patch(
    unpatched="Writes to sockets wait for the event loop's next turn",
    library="Twisted", module="twisted", versions=("26.10.",),
    uses=(_twisted("tcp:Connection", "write", params=("self", "bytes")),
          _twisted("tcp:Connection", "writeSomeData", params=("self", "data")),
          *(_twisted("tcp:Connection", name) for name in ("connected", "_writeDisconnected", "offset", "dataBuffer")),
          _twisted("abstract:FileDescriptor", "_tempDataBuffer", named_in="twisted.internet.abstract:FileDescriptor.__init__")),
    benchmark="`git show cbfc63d:docs/benchmarks.md`: py-spy on a saturated server (`moves.py saturation`), "
              "registering for writability was 9% of the event loop's thread",
    apply=_install,
)
