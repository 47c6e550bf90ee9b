"""[conductor] options: the watchdog that ends builds nobody is advancing any more."""

from oslo_config import cfg

conductor_group = cfg.OptGroup("conductor", title="Conductor options")
opts = [
    cfg.IntOpt(
        "build_watchdog_timeout",
        default=600,
        min=0,
        help="Seconds an instance may stay in BUILD without any change before a conductor "
        "puts it in ERROR with a fault and frees its placement allocations (its build "
        "message was lost with a process or a broker, or its host died). A build no "
        "conductor has taken yet waits in a queue, or is sent again by its API when that "
        "restarts: it gets ten times as long. 0 disables. Every conductor runs the "
        "watchdog; each stuck instance is ended by exactly one of them.",
    ),
    cfg.IntOpt(
        "build_watchdog_interval",
        default=60,
        min=1,
        help="Seconds between two runs of the build watchdog.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(conductor_group)
    conf.register_opts(opts, group=conductor_group)


def list_opts() -> dict:
    return {conductor_group: opts}
