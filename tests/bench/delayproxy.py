#!/usr/bin/env python3
"""delayproxy.py - a TCP proxy on 127.0.0.1 that adds latency to every request.

Each chunk the client sends (an HTTP request's headers arrive as one) waits
DELAY_MS before it goes upstream, so every request pays DELAY_MS more, in
parallel for parallel connections, as a far-away server would cost. Answers
flow back at once. For `make bench` (tests/bench/remote.sh); loopback only.

usage: delayproxy.py UPSTREAM_PORT DELAY_MS PORT_FILE
"""
import asyncio
import sys


async def pipe(reader, writer, delay):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if delay:
                await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def main():
    upstream, delay = int(sys.argv[1]), int(sys.argv[2]) / 1000.0

    async def handle(cr, cw):
        try:
            ur, uw = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            cw.close()
            return
        await asyncio.gather(pipe(cr, uw, delay), pipe(ur, cw, 0))

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    with open(sys.argv[3] + ".tmp", "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    import os
    os.rename(sys.argv[3] + ".tmp", sys.argv[3])
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
