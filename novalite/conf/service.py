"""Service identity, heartbeat and state directory options ([DEFAULT])."""

import os
import socket

from oslo_config import cfg

opts = [
    cfg.StrOpt(
        "host",
        default=socket.gethostname(),
        sample_default="<current_hostname>",
        help="Name of this node. Compute services are addressed by it over RPC and it is "
        "the host a server is placed on.",
    ),
    cfg.StrOpt(
        "state_path",
        default=os.path.abspath(".novalite"),
        sample_default="$cwd/.novalite",
        help="Directory for the embedded database and other local state.",
    ),
    cfg.IntOpt(
        "report_interval",
        default=10,
        min=1,
        help="Seconds between service heartbeats written to the services table.",
    ),
    cfg.IntOpt(
        "service_down_time",
        default=60,
        min=1,
        help="A service whose last heartbeat is older than this many seconds is down.",
    ),
    cfg.IntOpt(
        "graceful_shutdown_timeout",
        default=60,
        min=0,
        help="Seconds a stopping service waits for in-flight RPCs and requests to finish.",
    ),
    cfg.StrOpt(
        "interpreter_cpu",
        default="auto",
        regex=r"^(auto|none|[0-9]+)$",
        help="The one CPU that a service process's Python threads run on: 'auto' (the CPU "
        "the kernel runs it on as it starts), a CPU number, or 'none' (any CPU, as the "
        "kernel chooses). Its threads run one at a time (the interpreter's lock); spread "
        "over several CPUs they hand that lock from CPU to CPU at each blocking call. "
        "Programs a service starts (guests, NBD exports, dnsmasq, qemu-img) run on every "
        "CPU the service was allowed.",
    ),
]


# On the command line too, as oslo.log's in Nova (`--debug`, `-d`, `--log-file`); the
# `verbose` of older Nova releases is a deprecated alias of debug.
cli_opts = [
    cfg.BoolOpt("debug", short="d", default=False, deprecated_name="verbose",
                help="Log at DEBUG level: also heartbeats, periodic reports and each RPC."),
    cfg.StrOpt("log-file", metavar="PATH", help="Log to this file instead of standard error."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts)
    conf.register_cli_opts(cli_opts)


def list_opts() -> dict:
    return {"DEFAULT": opts + cli_opts}
