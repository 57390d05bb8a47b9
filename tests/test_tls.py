"""TLS is verified by default; --ca-file and --insecure are the documented ways out."""
import http.server
import shutil
import ssl
import subprocess
import threading

import pytest


class NotMcp(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.send_response(418)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def https_url(tmp_path):
    if not shutil.which("openssl"):
        pytest.skip("openssl is needed to make a self-signed certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out",
                    str(cert)], check=True, capture_output=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotMcp)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "https://127.0.0.1:%d/mcp" % server.server_address[1], cert
    server.shutdown()


def test_self_signed_certificate_is_refused_with_the_way_out(cli, https_url):
    url, _ = https_url
    result = cli("--url", url, "tool", "list")
    assert result.code == 1, result
    assert "certificate verification failed" in result.err
    assert "--ca-file" in result.err and "--insecure" in result.err


@pytest.mark.parametrize("flag", ["--ca-file", "--insecure"])
def test_ca_file_or_insecure_gets_past_tls(cli, https_url, flag):
    url, cert = https_url
    args = [flag, cert] if flag == "--ca-file" else [flag]
    result = cli("--url", url, *args, "tool", "list")
    assert result.code == 1, result
    assert "certificate" not in result.err and "HTTP 418" in result.err
