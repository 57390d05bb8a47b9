"""HTTP proxies, as users behind one have them: --proxy, or the environment as curl reads it.

The proxy is a real one, proxy.py (PyPI), on loopback: plain http:// requests go to it with
absolute URLs, https:// ones through a CONNECT tunnel, so TLS is still verified end to end."""
import base64
import shutil
import subprocess
import sys

import pytest

from conftest import wait_for

SECRET = "pr0xy-s3cret-pw"


class Proxy(object):
    def __init__(self, tmp_path, *flags):
        port_file, self.log = tmp_path / "proxy.port", tmp_path / "proxy.log"
        with open(str(self.log), "wb") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "proxy", "--hostname", "127.0.0.1", "--port", "0",
                                          "--port-file", str(port_file), "--num-acceptors", "1", "--num-workers",
                                          "1", "--data-dir", str(tmp_path)] + list(flags),
                                         stdout=log, stderr=subprocess.STDOUT)
        port = wait_for(lambda: port_file.exists() and port_file.read_text().strip())
        self.url = "http://127.0.0.1:%s" % port

    def saw(self, text):
        """Wait until the proxy's access log names ``text`` (it writes a line as a connection ends)."""
        return wait_for(lambda: text in self.log.read_text(errors="replace"), timeout=15)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def proxy(tmp_path):
    started = Proxy(tmp_path)
    yield started
    started.stop()


@pytest.fixture
def locked_proxy(tmp_path):
    started = Proxy(tmp_path, "--basic-auth", "alice:" + SECRET)
    yield started
    started.stop()


@pytest.fixture
def tls_server(start_server, tmp_path):
    if not shutil.which("openssl"):
        pytest.skip("openssl is needed to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    server = start_server("--tls", "%s:%s" % (cert, key))
    server.https_url = server.url.replace("https://127.0.0.1", "https://localhost")
    server.cert = cert
    return server


def port_of(url):
    return url.rsplit(":", 1)[1].split("/")[0]


def test_a_plain_http_server_is_reached_through_the_proxy(cli, start_server, proxy):
    server = start_server()
    result = cli("--url", server.url, "--proxy", proxy.url, "tool", "call", "echo", "message=via the proxy")
    assert result.code == 0 and "via the proxy" in result.out, result
    proxy.saw("POST 127.0.0.1:%s/mcp - 200 OK" % port_of(server.url))


def test_https_goes_through_a_connect_tunnel_and_tls_stays_verified(cli, tls_server, proxy):
    waited = cli("--url", tls_server.https_url, "--ca-file", tls_server.cert, "--proxy", proxy.url,
                 "tool", "call", "render_report", "quarter=Q2", "--task", "--wait")
    assert waited.code == 0 and "Q2 revenue: $4.6M across 1,310 orders" in waited.out, waited
    proxy.saw("CONNECT localhost:%s" % port_of(tls_server.url))
    unverified = cli("--url", tls_server.https_url, "--proxy", proxy.url, "tool", "list")  # the proxy vouches for nothing
    assert unverified.code == 1, unverified
    assert unverified.err.startswith("mcp-tui: cannot reach %s through the proxy %s: TLS certificate verification "
                                     "failed" % (tls_server.https_url, proxy.url)), unverified


@pytest.mark.parametrize("variables, used", [
    ({"http_proxy": "DEAD"}, True),
    ({"all_proxy": "DEAD"}, True),
    ({"ALL_PROXY": "DEAD"}, True),
    ({"HTTP_PROXY": "DEAD"}, False),  # curl reads only the lower-case one for http:// (a CGI request can set it)
    ({"https_proxy": "DEAD"}, False),  # for https:// servers only
    ({"http_proxy": "DEAD", "no_proxy": "example.com, 127.0.0.1"}, False),
    ({"http_proxy": "DEAD", "NO_PROXY": "127.0.0.0/8"}, False),
    ({"http_proxy": "DEAD", "no_proxy": "*"}, False),
    ({"http_proxy": "DEAD", "no_proxy": "127.0.0.2"}, True),
])
def test_the_environment_chooses_the_proxy_as_curl_does(cli, start_server, variables, used):
    server = start_server()
    dead = "http://127.0.0.1:9"  # nothing listens there: a request sent to it fails
    env = {k: v.replace("DEAD", dead) for k, v in variables.items()}  # conftest took the machine's away
    result = cli("--url", server.url, "tool", "list", env=env)
    if used:
        assert result.code == 1, result
        assert result.err.startswith("mcp-tui: cannot reach %s through the proxy %s: connection refused" % (
            server.url, dead)), result
        assert "--proxy ''" in result.err, result
    else:
        assert result.code == 0 and "echo (Echo)" in result.out, result
        # the control: the same dead proxy under a name that is read is used, so the case above
        # went straight there because of the rule it tests, not for want of proxy support
        control = cli("--url", server.url, "tool", "list", env={"http_proxy": dead})
        assert control.code == 1 and "through the proxy %s" % dead in control.err, control


def test_an_empty_proxy_flag_goes_straight_there(cli, start_server):
    server = start_server()
    env = {"http_proxy": "http://127.0.0.1:9"}
    assert cli("--url", server.url, "--proxy", "", "tool", "list", env=env).code == 0


@pytest.mark.parametrize("secure", [False, True])
def test_proxy_credentials_are_asked_for_then_sent_and_masked(cli, start_server, tls_server, locked_proxy, secure):
    server = tls_server if secure else start_server()
    url = server.https_url if secure else server.url
    tls = ["--ca-file", server.cert] if secure else []
    refused = cli("--url", url, *tls, "--proxy", locked_proxy.url, "tool", "list")
    assert refused.code == 1, refused
    assert refused.err == ("mcp-tui: cannot reach %s through the proxy %s: %s407 Proxy Authentication Required (the "
                           "proxy wants credentials: give them in its URL, http://USER:PASSWORD@HOST:PORT)\n" % (
                               url, locked_proxy.url, "the proxy refused: " if secure else "")), refused
    with_credentials = locked_proxy.url.replace("http://", "http://alice:%s@" % SECRET)
    result = cli("--url", url, *tls, "--proxy", with_credentials, "--debug", "--trace", "tool", "call", "echo",
                 "message=past the proxy")
    assert result.code == 0 and "past the proxy" in result.out, result
    assert "through the proxy %s" % locked_proxy.url in result.err, result
    basic = base64.b64encode(("alice:" + SECRET).encode()).decode()
    for text in (result.out, result.err):
        assert SECRET not in text and basic not in text


def test_a_proxy_mcp_tui_cannot_speak_is_refused_before_anything_is_sent(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "--proxy", "socks5://127.0.0.1:1080", "tool", "list")
    assert result.code == 2, result
    assert result.err.splitlines()[0] == ("mcp-tui: cannot use the proxy socks5://127.0.0.1:1080: mcp-tui speaks to "
                                          "http:// proxies only (give it as http://HOST:PORT (the proxy tunnels "
                                          "https:// requests with CONNECT))"), result
    assert server.records() == []
