"""deploy/nginx.py: the client's address that reaches Daphne is one nginx believes, never one the
client wrote; a proxy's X-Forwarded-For, and its X-Forwarded-Proto, are believed only from the
trusted list."""

from pathlib import Path

import pytest

from tests.support.nginx import config

pytestmark = pytest.mark.pure


def rendered(**kwargs) -> str:
    return config.render(listen="127.0.0.1:8000", upstreams=["127.0.0.1:8001"], directory=Path("/tmp/nginx"),
                         max_body=2_500_000, **kwargs)


def test_at_the_edge_the_forwarded_address_is_the_peers_and_no_proxy_is_believed():
    text = rendered()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in text
    assert "proxy_set_header X-Real-IP $remote_addr;" in text
    assert "proxy_set_header X-Forwarded-Port $remote_port;" in text  # Daphne reads the port from it
    assert "$proxy_add_x_forwarded_for" not in text  # appending keeps the client's own entry first
    assert "real_ip" not in text
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in text  # the scheme nginx was reached by
    assert "geo " not in text and "$forwarded_proto" not in text


def test_behind_trusted_proxies_only_they_are_believed_and_the_client_is_found_from_the_right():
    text = rendered(trusted_proxies=config.trusted_proxies_from(" 10.0.0.0/8, 192.0.2.1,, ::1 "))
    believed = [line.strip() for line in text.splitlines() if "real_ip" in line and not line.strip().startswith("#")]
    assert believed == ["set_real_ip_from 10.0.0.0/8;", "set_real_ip_from 192.0.2.1/32;", "set_real_ip_from ::1/128;",
                        "real_ip_header X-Forwarded-For;", "real_ip_recursive on;"]
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in text  # the address realip found, alone


def test_behind_trusted_proxies_only_they_name_the_scheme_and_only_as_http_or_https():
    text = rendered(trusted_proxies=config.trusted_proxies_from("10.0.0.0/8, ::1"))
    lines = [line.strip() for line in text.splitlines()]
    geo = lines.index("geo $realip_remote_addr $from_trusted_proxy {")  # the peer, not the client realip found
    assert lines[geo + 1:geo + 5] == ["default 0;", "10.0.0.0/8 1;", "::1/128 1;", "}"]
    mapped = lines.index('map "$from_trusted_proxy:$http_x_forwarded_proto" $forwarded_proto {')
    assert lines[mapped + 1:mapped + 5] == ["default $scheme;", "1:http http;", "1:https https;", "}"]
    assert "proxy_set_header X-Forwarded-Proto $forwarded_proto;" in lines


@pytest.mark.parametrize("wrong", ["10.0.0.0/33", "proxy.example", "10.0.0.1;"])
def test_a_trusted_proxy_that_is_not_an_address_stops_with_its_name(wrong):
    with pytest.raises(SystemExit, match="TRUSTED_PROXIES: .*" + wrong.split("/")[0].replace(".", r"\.")):
        config.trusted_proxies_from(f"10.1.0.0/16,{wrong}")
