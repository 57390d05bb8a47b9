"""Serving an interop peer's ASGI app on loopback, for sdk_server.py and
fastmcp_tasks_server.py (each runs in its own peer venv, which has uvicorn)."""
import socket


def serve_http(app, port, path, **config):
    """Serve `app` on 127.0.0.1:port and print `listening on URL` once uvicorn accepts
    connections (the tests wait for that line). Extra keywords go to uvicorn.Config."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    url = "http://127.0.0.1:%d%s" % (sock.getsockname()[1], path)

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            if self.started:
                print("listening on " + url, flush=True)

    options = dict(log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    options.update(config)
    AnnouncingServer(uvicorn.Config(app, **options)).run(sockets=[sock])
