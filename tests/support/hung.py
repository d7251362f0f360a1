"""A Redis that stopped answering: a TCP server that accepts and reads, and never replies."""

import asyncio
import contextlib


@contextlib.asynccontextmanager
async def hung_redis():
    """Yields (its redis:// URL, the list of what each connection sent first)."""
    heard: list[bytes] = []

    async def silent(reader, writer):
        heard.append(await reader.read(100))
        await asyncio.sleep(30)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    try:
        yield f"redis://127.0.0.1:{server.sockets[0].getsockname()[1]}", heard
    finally:
        server.close()
