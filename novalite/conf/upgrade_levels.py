"""[upgrade_levels]: cap the RPC API version sent to each service during rolling upgrades."""

from oslo_config import cfg

group = cfg.OptGroup("upgrade_levels", title="RPC version caps for rolling upgrades")

opts = [
    cfg.StrOpt("compute", help="Highest compute RPC API version to send, e.g. '1.0'."),
    cfg.StrOpt("conductor", help="Highest conductor RPC API version to send."),
    cfg.StrOpt("scheduler", help="Highest scheduler RPC API version to send."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> dict:
    return {group: opts}
