"""Serving an interop peer's ASGI app on loopback, for sdk_server.py,
fastmcp_tasks_server.py and the authorization peers (each runs in its own peer venv,
which has uvicorn)."""
import socket


def bind_loopback(port, path):
    """A listening socket on 127.0.0.1:port and the URL of `path` on it: a peer whose
    app must know its own URL (an authorization server names itself in its metadata)
    binds first, builds the app, then calls serve_http(..., sock=sock)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    return sock, "http://127.0.0.1:%d%s" % (sock.getsockname()[1], path)


def serve_http(app, port, path, sock=None, **config):
    """Serve `app` on 127.0.0.1:port (or on `sock` from bind_loopback) and print
    `listening on URL` once uvicorn accepts connections (the tests wait for that line).
    Extra keywords go to uvicorn.Config."""
    import uvicorn

    if sock is None:
        sock, url = bind_loopback(port, path)
    else:
        url = "http://127.0.0.1:%d%s" % (sock.getsockname()[1], path)

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            if self.started:
                print("listening on " + url, flush=True)

    options = dict(log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    options.update(config)
    AnnouncingServer(uvicorn.Config(app, **options)).run(sockets=[sock])
