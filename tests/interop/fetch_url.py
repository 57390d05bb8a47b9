"""A stand-in browser for authorization tests: BROWSER="python3 fetch_url.py %s".

It GETs the URL and follows redirects (the authorization server's 302 lands on
mcp-tui's loopback listener), the way a browser with a signed-in user would. Only
loopback URLs are fetched; the exit status says whether the last answer was 2xx.
"""
import sys
import urllib.error
import urllib.request
from urllib.parse import urlsplit


class LoopbackOnly(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urlsplit(newurl).hostname not in ("127.0.0.1", "localhost", "::1"):
            raise urllib.error.HTTPError(newurl, code, "redirect off loopback refused", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def main(url):
    opener = urllib.request.build_opener(LoopbackOnly)
    try:
        with opener.open(url, timeout=20) as response:
            response.read()
            return 0
    except (urllib.error.URLError, OSError) as exc:
        sys.stderr.write("fetch_url: %s\n" % exc)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
