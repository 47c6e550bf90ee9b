import urllib.parse

from novalite.compute import consoles_api


def test_novnc_carries_the_token_in_its_path_the_others_in_a_token_parameter():
    url = consoles_api.access_url("http://h:6080/vnc_lite.html?path=novnc/websockify",
                                  "novnc", "t0k")
    params = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
    assert params["path"] == ["novnc/websockify?token=t0k"]
    assert consoles_api.access_url("ws://h:6083/", "serial", "t0k") == "ws://h:6083/?token=t0k"


def test_the_base_urls_default_to_this_clouds_proxy_and_follow_the_operators(conf):
    assert consoles_api.base_url("novnc", "https://c:8774") == (
        "https://c:8774/novnc/vnc_lite.html?path=novnc/websockify")
    assert consoles_api.base_url("serial", "https://c:8774") == "wss://c:8774/serial/"
    assert consoles_api.base_url("serial", "http://c:8774") == "ws://c:8774/serial/"
    conf.set_override("novncproxy_base_url", "http://p:6080/vnc_auto.html", group="vnc")
    conf.set_override("base_url", "ws://p:6083/", group="serial_console")
    assert consoles_api.base_url("novnc", "http://c") == "http://p:6080/vnc_auto.html"
    assert consoles_api.base_url("serial", "http://c") == "ws://p:6083/"
