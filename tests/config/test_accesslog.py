"""Daphne's access log never holds a token: the line for a request that sent one in its query
string (refused by the API) or in its path shows ``[hidden]`` in its place."""

import io

from daphne.access import AccessLogGenerator

from config import accesslog

SECRET = "bh_Zm9vYmFyYmF6cXV4cXV1eA"


def logged(path: str, protocol: str = "http", action: str = "complete") -> str:
    assert accesslog.hide_secrets()
    stream = io.StringIO()
    AccessLogGenerator(stream)(protocol, action, {"client": "127.0.0.1:5000", "path": path, "method": "GET",
                                                  "status": 401, "size": 10})
    return stream.getvalue()


def test_a_token_in_the_query_string_is_not_written():
    line = logged(f"/api/account?token={SECRET}&page=2")
    assert SECRET not in line and "bh_" not in line
    assert "/api/account?token=%5Bhidden%5D&page=2" in line and " 401 " in line


def test_any_secret_named_parameter_or_token_shaped_text_is_hidden_and_the_rest_kept():
    line = logged(f"/api/x?access_token=abc123&api_key=k9&invite=i77&q=chess%20x&next=/{SECRET}")
    assert "abc123" not in line and "k9" not in line and "i77" not in line and SECRET not in line
    assert "q=chess" in line
    assert logged("/matches/7/?page=2").count("/matches/7/?page=2") == 1


def test_websocket_lines_are_cleaned_too():
    line = logged(f"/ws/match/3/?invite_token=secret-invite&t={SECRET}", protocol="websocket", action="connected")
    assert "secret-invite" not in line and SECRET not in line and "WSCONNECT" in line


def test_installing_twice_wraps_once():
    assert accesslog.hide_secrets() and accesslog.hide_secrets()
    assert logged("/a?token=x").count("[hidden]") == 0 and "%5Bhidden%5D" in logged("/a?token=x")
