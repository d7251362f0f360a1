"""config/tcpwrite.py: a write to a client's socket with nothing waiting goes out at once;
what the kernel does not take is buffered and sent in order by Twisted's usual path."""

import socket

import pytest
from twisted.internet import main, tcp

import config.asgi  # noqa: F401  (installs the write, as the server does)


class Reactor:
    """What a connection asks of its reactor: here only which sockets wait to be writable."""

    def __init__(self) -> None:
        self.writers: list = []

    def addWriter(self, conn) -> None:  # noqa: N802 (Twisted's name)
        if conn not in self.writers:  # as a real reactor, which watches a socket once
            self.writers.append(conn)

    def removeWriter(self, conn) -> None:  # noqa: N802
        self.writers.remove(conn)


@pytest.fixture
def pair():
    """A Twisted connection on one end of a local socket pair, and the peer that reads it."""
    ours, peer = socket.socketpair()
    reactor = Reactor()
    conn = tcp.Connection(ours, protocol=None, reactor=reactor)
    conn.connected = True
    yield conn, peer, reactor
    ours.close()
    peer.close()


def read_all(peer: socket.socket, size: int) -> bytes:
    peer.settimeout(2)
    got = b""
    while len(got) < size:
        got += peer.recv(size - len(got))
    return got


def test_a_write_with_nothing_waiting_goes_out_at_once(pair):
    conn, peer, reactor = pair
    conn.write(b"first frame")
    assert reactor.writers == []  # no registering for writability, no later turn of the loop
    assert read_all(peer, 11) == b"first frame"


def test_what_the_kernel_does_not_take_is_buffered_and_sent_in_order(pair):
    conn, peer, reactor = pair
    conn.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    big = bytes(range(256)) * 4096  # 1 MiB: more than the kernel takes at once
    conn.write(big)
    conn.write(b"after")  # something is waiting: this one queues behind it
    assert reactor.writers == [conn]
    expected = big + b"after"
    peer.settimeout(2)
    got = b""
    while len(got) < len(expected):
        if reactor.writers:
            conn.doWrite()  # what the reactor does when the socket is writable again
        got += peer.recv(65536)
    assert got == expected and reactor.writers == []


def test_a_write_to_a_lost_connection_is_left_to_twisted(pair):
    conn, peer, reactor = pair
    peer.close()
    conn.socket.shutdown(socket.SHUT_WR)  # sending now fails with EPIPE
    conn.write(b"into the void")  # no exception here: Twisted's buffered path reports the loss
    assert reactor.writers == [conn]
    assert conn.doWrite() is main.CONNECTION_LOST
