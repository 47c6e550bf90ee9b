"""Remote consoles: [vnc], [serial_console], [consoleauth] and [console], by Nova's names.

novalite's console proxy is served by the API's HTTP server (novalite.api.console), so
the access URLs default to the address the client reached the compute API on; an
operator behind a load balancer names the public ones, as in Nova."""

from oslo_config import cfg

vnc = cfg.OptGroup("vnc", title="VNC consoles")
serial_console = cfg.OptGroup("serial_console", title="Serial consoles")
consoleauth = cfg.OptGroup("consoleauth", title="Console authorization tokens")
console = cfg.OptGroup("console", title="The console proxy")

vnc_opts = [
    cfg.BoolOpt("enabled", default=True,
                help="Give guests a VNC console (QEMU's VNC server; the fake driver "
                     "serves a blank screen over RFB)."),
    cfg.StrOpt("novncproxy_base_url",
               help="Public URL of the noVNC page, to which the token is added "
                    "(?path=...%3Ftoken%3D...). Default: <the address the client "
                    "reached the API on>/novnc/vnc_lite.html?path=novnc/websockify"),
    cfg.HostAddressOpt("server_listen", default="127.0.0.1",
                       help="Address the guests' VNC servers listen on, on each compute."),
    cfg.HostAddressOpt("server_proxyclient_address", default="127.0.0.1",
                       help="Address of the compute host the console proxy connects to "
                            "the guests' VNC servers on."),
]

serial_opts = [
    cfg.BoolOpt("enabled", default=False,
                help="Make each guest's first serial port a TCP listener the console "
                     "proxy can reach (its output is still logged for "
                     "os-getConsoleOutput)."),
    cfg.StrOpt("port_range", default="10000:20000", regex=r"^\d+:\d+$",
               help="Ports (min:max) the guests' serial consoles listen on."),
    cfg.StrOpt("base_url",
               help="Public websocket URL of the serial console proxy, to which "
                    "?token=... is added. Default: ws(s)://<the address the client "
                    "reached the API on>/serial/"),
    cfg.HostAddressOpt("proxyclient_address", default="127.0.0.1",
                       help="Address the guests' serial consoles listen on, which the "
                            "console proxy connects to."),
]

consoleauth_opts = [
    cfg.IntOpt("token_ttl", default=600, min=1,
               help="Seconds a console access URL stays valid."),
    cfg.BoolOpt("enforce_session_timeout", default=False,
                help="Close a console connection when its token expires, not only "
                     "refuse new ones."),
]

console_opts = [
    cfg.ListOpt("allowed_origins", default=[],
                help="Host names a browser's Origin header may name besides the one "
                     "the proxy was reached on."),
]

default_opts = [
    cfg.StrOpt("web", default="/usr/share/novnc",
               help="Directory of noVNC's pages (vnc_lite.html), served under /novnc/ "
                    "beside the console websocket; Debian's novnc package puts them "
                    "here."),
]

GROUPS = {"DEFAULT": default_opts, vnc: vnc_opts, serial_console: serial_opts,
          consoleauth: consoleauth_opts, console: console_opts}


def register_opts(conf: cfg.ConfigOpts) -> None:
    for group, opts in GROUPS.items():
        if not isinstance(group, cfg.OptGroup):
            conf.register_opts(opts)
            continue
        conf.register_group(group)
        conf.register_opts(opts, group=group)


def list_opts() -> dict:
    return dict(GROUPS)
