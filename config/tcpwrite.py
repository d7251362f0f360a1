"""Write to a client's socket when asked, as asyncio's own transports do.

Twisted, under Daphne, never writes when asked: it appends the bytes to a buffer, registers
the socket for writing with the event loop (a system call), writes on the loop's next turn
through its logging wrappers, then unregisters the socket (another system call). A loaded
server sends four messages a move, one to each socket of the match, so that was two system
calls and an extra turn of the loop per message, on the thread every socket shares
(docs/benchmarks.md). Here a write to a connection with nothing already waiting is tried at
once; whatever the kernel does not take (or a write that fails) goes the usual buffered way,
so order, back-pressure and the handling of lost connections stay Twisted's own.
"""

from __future__ import annotations


def write_at_once() -> None:
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
    tcp.Connection.write = write
